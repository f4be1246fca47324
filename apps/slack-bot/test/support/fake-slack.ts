import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import { type Budget, RateBudgets } from "../../../../tests/support/rate-budget.js";
import { BLOCK_KIT_LIMITS, blockKitErrors } from "./slack-block-kit.js";

/** One Web API call as the bot made it: the method, the token it sent, its arguments (JSON fields parsed). */
export interface SlackCall {
  method: string;
  token: string | undefined;
  args: Record<string, unknown>;
  /** The error Slack answered (`ok: false`), if it did. */
  error?: string;
}

/** A message as it stands in the fake workspace: posted, then updated in place. */
export interface FakeMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: SlackBlock[];
  /** Every version of it, the first posted one first. */
  versions: { text: string; blocks: SlackBlock[] }[];
  isDeleted: boolean;
  /** The workspace it was posted in, and by whom: only that workspace's bot may update it. */
  teamId: string;
  postedBy: string;
}

export interface SlackBlock {
  type: string;
  block_id?: string;
  text?: { type: string; text: string };
  image_url?: string;
  elements?: { type: string; action_id?: string; value?: string; text?: { text: string } }[];
  [key: string]: unknown;
}

export interface FakeFile {
  id: string;
  filename: string;
  length: number;
  bytes: Buffer | undefined;
  /** Set by files.completeUploadExternal: where it was shared. */
  channelId?: string;
  threadTs?: string;
}

/** What a bot posted to a response_url (ephemeral answers to commands and button clicks). */
export interface ResponseUrlPost {
  responseUrl: string;
  body: { text?: string; response_type?: string; replace_original?: boolean };
}

export interface FakeUser {
  id: string;
  isAdmin?: boolean;
  isOwner?: boolean;
}

/** Arguments Slack's Web API takes as JSON text inside a form body. */
const JSON_ARGUMENTS = new Set(["blocks", "view", "files", "attachments"]);

/**
 * Slack's rate limits, per method per workspace per app (https://docs.slack.dev/apis/web-api/rate-limits):
 * Tier 2 20+ per minute, Tier 3 50+ per minute, Tier 4 100+ per minute, "sporadic bursts welcome";
 * chat.postMessage "generally allows one message per second per channel" with short bursts. Kept here as
 * budgets that refill steadily with a burst of their size (3 per 3 s for a channel's posts). Beyond them
 * Slack answers HTTP 429 with Retry-After (whole seconds) and `ratelimited`. Tiers from each method's page.
 */
const TIER_2: Budget = { limit: 20, windowMs: 60_000 };
const TIER_3: Budget = { limit: 50, windowMs: 60_000 };
const TIER_4: Budget = { limit: 100, windowMs: 60_000 };
export const DOCUMENTED_BUDGETS: Record<string, Budget> = {
  "chat.update": TIER_3,
  "chat.delete": TIER_3,
  "chat.postEphemeral": TIER_4,
  "views.open": TIER_4,
  "users.info": TIER_4,
  "usergroups.users.list": TIER_2,
  "files.getUploadURLExternal": TIER_4,
  "files.completeUploadExternal": TIER_4,
  "apps.connections.open": TIER_2,
};
export const POST_MESSAGE_BUDGET: Budget = { limit: 3, windowMs: 3_000 };

/**
 * The bot token scope each method the bot calls needs (each method's page, "Required scopes"); without it
 * Slack answers `missing_scope` with the scope `needed` and those `provided`.
 */
const METHOD_SCOPES: Record<string, string> = {
  "usergroups.list": "usergroups:read",
  "chat.postMessage": "chat:write",
  "chat.update": "chat:write",
  "chat.delete": "chat:write",
  "chat.postEphemeral": "chat:write",
  "users.info": "users:read",
  "usergroups.users.list": "usergroups:read",
  "files.getUploadURLExternal": "files:write",
  "files.completeUploadExternal": "files:write",
};

/** How long a trigger_id serves views.open (https://docs.slack.dev/interactivity/handling-user-interaction). */
const TRIGGER_LIFETIME_MS = 3_000;
/** A response_url takes 5 posts within 30 minutes (https://docs.slack.dev/interactivity/handling-user-interaction#message_responses). */
const RESPONSE_URL_USES = 5;
const RESPONSE_URL_LIFETIME_MS = 30 * 60_000;

/**
 * A local stand-in for Slack's Web API (https://docs.slack.dev/reference/methods): the methods the bot
 * calls, answered in their documented shape (`ok`, `error`), tokens checked, every call recorded. It also
 * serves the upload URLs files.getUploadURLExternal hands out, and response_urls.
 */
export class FakeSlack {
  readonly calls: SlackCall[] = [];
  readonly messages = new Map<string, FakeMessage>();
  readonly files = new Map<string, FakeFile>();
  readonly responses: ResponseUrlPost[] = [];
  readonly users = new Map<string, FakeUser>();
  /** Channels the bot is not in: chat.postMessage there answers not_in_channel. */
  readonly closedChannels = new Set<string>();
  /**
   * Public channels the bot posts in through chat:write.public without having joined them: messages and
   * their updates go through, but shared files and ephemeral messages answer not_in_channel.
   */
  readonly channelsNotJoined = new Set<string>();
  /**
   * Private channels the bot is not in, or was removed from: Slack does not show them to it, and every
   * method naming them answers channel_not_found.
   */
  readonly hiddenChannels = new Set<string>();
  /** Members of user groups, by group id (usergroups.users.list). */
  readonly userGroups = new Map<string, string[]>();
  /** The @handle of each user group (what a person types, and what Slack sends with should_escape false). */
  readonly userGroupHandles = new Map<string, string>();
  /**
   * Channels whose posting permissions a workspace admin keeps from apps: posting and updating there answer
   * restricted_action ("A workspace preference prevents the authenticated user from posting").
   */
  readonly restrictedChannels = new Set<string>();
  /** Archived channels: posting, updating and sharing there answer is_archived. */
  readonly archivedChannels = new Set<string>();
  /** Tokens revoked (the app uninstalled, or the token revoked): every call answers token_revoked. */
  readonly revokedTokens = new Set<string>();
  /** Who is in a channel, where a test says so: an ephemeral message to anyone else answers user_not_in_channel. */
  readonly channelMembers = new Map<string, Set<string>>();
  /**
   * The next image_url downloads that fail, as Slack's intermittently do: the message is refused with
   * invalid_blocks, "downloading image failed".
   */
  failingImageDownloads = 0;
  /** The image_urls Slack fetched, with the HTTP status each answered (0: no answer). */
  readonly imageFetches: { url: string; status: number }[] = [];
  /** Workspaces on Slack's free plan, which has no user groups: usergroups methods answer plan_upgrade_required. */
  readonly workspacesWithoutUserGroups = new Set<string>();
  /** The error the next call of a method answers, once. */
  readonly nextErrors = new Map<string, string>();
  /** Per-method budgets per workspace; a test tightens or lifts them. */
  readonly methodBudgets: Record<string, Budget | undefined> = { ...DOCUMENTED_BUDGETS };
  /** chat.postMessage's budget per channel. */
  postMessageBudget: Budget | undefined = POST_MESSAGE_BUDGET;
  /** Every 429 `ratelimited` answered, by method, workspace (and channel). */
  readonly budgets = new RateBudgets();
  /** Every `invalid_blocks` and `msg_too_long` answered, with its method: a correct bot causes none. */
  readonly refusedLayouts: { method: string; error: string; errors: string[] }[] = [];
  /**
   * Slack waits 3 s for the app's HTTP answer to a command, action or view submission, then shows the
   * person "operation_timeout" and drops the answer (https://docs.slack.dev/interactivity/handling-user-interaction#acknowledgment_response).
   */
  ackDeadlineMs = 3_000;
  /** Requests of Slack the bot answered after the deadline, by their body's kind. */
  readonly lateAcks: string[] = [];
  private readonly triggers = new Map<string, { issuedAt: number; isUsed: boolean }>();
  private readonly responseUrls = new Map<string, { issuedAt: number; uses: number }>();
  private readonly tokens = new Map<string, { teamId: string; botUserId: string; scopes: string[] }>();
  private sequence = 0;
  /** Socket Mode: the connections apps.connections.open handed out, and the acks awaited on them. */
  private sockets: WebSocketServer | undefined;
  private readonly socketClients = new Set<WebSocket>();
  private readonly pendingAcks = new Map<string, (payload: Record<string, unknown>) => void>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeSlack> {
    const server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    const fake = new FakeSlack(server, `http://127.0.0.1:${port}`);
    server.on("request", (request, response) => {
      fake.handle(request, response).catch((error: unknown) => {
        response.writeHead(500).end(String(error));
      });
    });
    return fake;
  }

  /** What SLACK_API_URL is set to. */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  /** A bot token this fake accepts, for a workspace, granted the scopes the app asks for unless told others. */
  addBotToken(token: string, teamId: string, scopes = FAKE_OAUTH_APP.scopes.split(",")): void {
    this.tokens.set(token, { teamId, botUserId: `UBOT${teamId}`, scopes });
  }

  /**
   * Accepts an app-level token for Socket Mode: apps.connections.open then answers a WebSocket URL on
   * this server, which greets each connection with `hello` as Slack does.
   */
  enableSocketMode(appToken: string): void {
    this.tokens.set(appToken, { teamId: "", botUserId: "", scopes: ["connections:write"] });
    this.sockets = new WebSocketServer({ server: this.server, path: "/socket" });
    this.sockets.on("connection", (socket) => {
      this.socketClients.add(socket);
      socket.on("close", () => this.socketClients.delete(socket));
      socket.on("message", (data) => {
        const { envelope_id: envelopeId, payload } = JSON.parse(String(data)) as {
          envelope_id: string;
          payload?: Record<string, unknown>;
        };
        this.pendingAcks.get(envelopeId)?.(payload ?? {});
        this.pendingAcks.delete(envelopeId);
      });
      socket.send(
        JSON.stringify({ type: "hello", num_connections: 1, connection_info: { app_id: "AFAKE" } }),
      );
    });
  }

  get socketConnections(): number {
    return this.socketClients.size;
  }

  /** Sends an envelope over Socket Mode, as Slack does; answers the payload of the app's ack. */
  sendEnvelope(type: string, payload: Record<string, unknown>): Promise<Record<string, unknown>> {
    const [socket] = this.socketClients;
    if (!socket) throw new Error("no Socket Mode connection");
    const envelopeId = `envelope-${this.nextSequence()}`;
    const acked = new Promise<Record<string, unknown>>((resolve) =>
      this.pendingAcks.set(envelopeId, resolve),
    );
    socket.send(JSON.stringify({ envelope_id: envelopeId, type, payload, accepts_response_payload: true }));
    return acked;
  }

  addUser(user: FakeUser): void {
    this.users.set(user.id, user);
  }

  /** A fresh response_url, as Slack puts one in each command and button payload. */
  responseUrl(): string {
    this.sequence += 1;
    const url = `${this.url}/responses/${this.sequence}`;
    this.responseUrls.set(url, { issuedAt: Date.now(), uses: 0 });
    return url;
  }

  /** A fresh trigger_id, as Slack puts one in each command, click and submission: views.open takes it once, for 3 s. */
  triggerId(): string {
    const id = `${this.nextSequence()}.${Date.now()}.trigger`;
    this.triggers.set(id, { issuedAt: Date.now(), isUsed: false });
    return id;
  }

  /** The bot is removed from a private channel (or never was in it): Slack hides the channel from it. */
  removeBotFrom(channel: string): void {
    this.hiddenChannels.add(channel);
  }

  /** Someone deletes a message: updates of it answer message_not_found. */
  deleteMessage(channel: string, ts: string): void {
    const message = this.messages.get(`${channel}/${ts}`);
    if (message) message.isDeleted = true;
  }

  /** The `ratelimited` answers, in all or for one method. */
  rateLimitedCalls(method = ""): number {
    return this.budgets.refusals(method);
  }

  callsOf(method: string): SlackCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  messagesIn(channel: string): FakeMessage[] {
    return [...this.messages.values()].filter((message) => message.channel === channel && !message.isDeleted);
  }

  responsesTo(responseUrl: string): ResponseUrlPost[] {
    return this.responses.filter((response) => response.responseUrl === responseUrl);
  }

  async close(): Promise<void> {
    for (const socket of this.socketClients) socket.terminate();
    this.sockets?.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? "/", this.url).pathname;
    const body = await readBody(request);
    if (path.startsWith("/api/")) {
      const call = this.parseCall(path.slice("/api/".length), request, body);
      this.calls.push(call);
      const retryAfter = this.spend(call);
      if (retryAfter !== undefined) {
        call.error = "ratelimited";
        response.setHeader("retry-after", String(retryAfter));
        return answer(response, 429, { ok: false, error: "ratelimited" });
      }
      const answered = (await this.imageDownloadRefusal(call)) ?? this.apiMethod(call);
      if (answered.ok !== true) call.error = String(answered.error);
      // Slack tells every call the scopes its token has.
      const scopes = call.token === undefined ? undefined : this.tokens.get(call.token)?.scopes;
      if (scopes) response.setHeader("x-oauth-scopes", scopes.join(","));
      return answer(response, 200, answered);
    }
    if (path.startsWith("/upload/"))
      return this.receiveUpload(path.slice("/upload/".length), request, body, response);
    if (path.startsWith("/responses/")) return this.respond(`${this.url}${path}`, body, response);
    answer(response, 404, { ok: false, error: "not_found" });
  }

  private parseCall(method: string, request: IncomingMessage, body: Buffer): SlackCall {
    const args: Record<string, unknown> = {};
    for (const [name, value] of new URLSearchParams(body.toString("utf8"))) {
      args[name] = JSON_ARGUMENTS.has(name) ? JSON.parse(value) : value;
    }
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    return { method, token: bearer ?? (args.token as string | undefined), args };
  }

  /** Spends one call of its method's budget; answers the seconds to wait when the budget is spent. */
  private spend({ method, token, args }: SlackCall): number | undefined {
    const teamId = (token === undefined ? undefined : this.tokens.get(token)?.teamId) ?? "unknown";
    const channel = String(args.channel ?? args.channel_id ?? "");
    const [key, budget] =
      method === "chat.postMessage"
        ? [`${method}:${teamId}:${channel}`, this.postMessageBudget]
        : [`${method}:${teamId}`, this.methodBudgets[method]];
    if (!budget) return undefined;
    const spending = this.budgets.spendRefilling(key, budget);
    return spending.isRefused ? Math.max(1, Math.ceil(spending.resetAfterMs / 1000)) : undefined;
  }

  /** Posts to a response_url: 5 within 30 minutes, layouts checked as chat.postMessage checks them. */
  private respond(responseUrl: string, body: Buffer, response: ServerResponse): void {
    const posted = JSON.parse(body.toString("utf8")) as ResponseUrlPost["body"] & { blocks?: unknown };
    const [status, answered] = this.responseUrlAnswer(responseUrl, posted);
    if (status === 200) this.responses.push({ responseUrl, body: posted });
    answer(response, status, answered);
  }

  private responseUrlAnswer(
    responseUrl: string,
    posted: { text?: unknown; blocks?: unknown },
  ): [number, Record<string, unknown>] {
    const issued = this.responseUrls.get(responseUrl);
    if (!issued) return [404, { ok: false, error: "invalid_url" }];
    if (Date.now() - issued.issuedAt > RESPONSE_URL_LIFETIME_MS)
      return [404, { ok: false, error: "expired_url" }];
    if (issued.uses >= RESPONSE_URL_USES) return [404, { ok: false, error: "used_url" }];
    issued.uses += 1;
    const refusal = this.layoutRefusal("response_url", posted);
    return refusal ? [400, refusal] : [200, { ok: true }];
  }

  /** Slack's refusal of a message's text and blocks (or a modal's blocks), if any. */
  private layoutRefusal(
    method: string,
    message: { text?: unknown; blocks?: unknown },
    surface: "message" | "modal" = "message",
  ): Record<string, unknown> | undefined {
    const errors = blockKitErrors(message.blocks, surface);
    const isTextTooLong =
      typeof message.text === "string" && [...message.text].length > BLOCK_KIT_LIMITS.messageText;
    if (errors.length === 0 && !isTextTooLong) return undefined;
    const error = errors.length > 0 ? "invalid_blocks" : "msg_too_long";
    this.refusedLayouts.push({ method, error, errors });
    return {
      ok: false,
      error,
      ...(errors.length > 0 && {
        errors,
        response_metadata: { messages: errors.map((line) => `[ERROR] ${line}`) },
      }),
    };
  }

  /**
   * Slack fetches each image block's image_url itself when a message is posted or updated, and refuses the
   * message when it cannot (https://docs.slack.dev/reference/block-kit/blocks/image-block): a link it
   * cannot reach, an answer that is not an image, or one of its intermittent failures.
   */
  private async imageDownloadRefusal({
    method,
    token,
    args,
  }: SlackCall): Promise<Record<string, unknown> | undefined> {
    if (method !== "chat.postMessage" && method !== "chat.update") return undefined;
    if (token === undefined || !this.tokens.has(token)) return undefined;
    const blocks = (Array.isArray(args.blocks) ? args.blocks : []) as SlackBlock[];
    for (const [index, block] of blocks.entries()) {
      if (block.type !== "image" || typeof block.image_url !== "string") continue;
      const url = block.image_url;
      let status = 0;
      if (this.failingImageDownloads > 0) {
        this.failingImageDownloads -= 1;
      } else {
        const fetched = await fetch(url, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
        const isImage = fetched?.headers.get("content-type")?.startsWith("image/") === true;
        status = fetched?.status ?? 0;
        await fetched?.arrayBuffer().catch(() => undefined);
        this.imageFetches.push({ url, status });
        if (fetched?.ok && isImage) continue;
      }
      const errors = [`downloading image failed [json-pointer:/blocks/${index}/image_url]`];
      this.refusedLayouts.push({ method, error: "invalid_blocks", errors });
      return { ok: false, error: "invalid_blocks", errors };
    }
    return undefined;
  }

  private apiMethod({ method, token, args }: SlackCall): Record<string, unknown> {
    if (method === "oauth.v2.access") return this.oauthAccess(args);
    if (token !== undefined && this.revokedTokens.has(token)) return { ok: false, error: "token_revoked" };
    const nextError = this.nextErrors.get(method);
    if (nextError !== undefined) {
      this.nextErrors.delete(method);
      return { ok: false, error: nextError };
    }
    const identity = token === undefined ? undefined : this.tokens.get(token);
    if (!identity) return { ok: false, error: token === undefined ? "not_authed" : "invalid_auth" };
    const needed = METHOD_SCOPES[method];
    if (needed !== undefined && !identity.scopes.includes(needed)) {
      return { ok: false, error: "missing_scope", needed, provided: identity.scopes.join(",") };
    }
    const channel = args.channel ?? args.channel_id;
    if (channel !== undefined && this.hiddenChannels.has(String(channel))) {
      return { ok: false, error: "channel_not_found" };
    }
    // A direct message between people: the bot is in none but its own with each person.
    if (
      typeof channel === "string" &&
      channel.startsWith("D") &&
      !channel.startsWith(`D${identity.botUserId}`)
    ) {
      return { ok: false, error: "channel_not_found" };
    }
    const isWriting = [
      "chat.postMessage",
      "chat.update",
      "chat.postEphemeral",
      "files.completeUploadExternal",
    ];
    if (channel !== undefined && this.archivedChannels.has(String(channel)) && isWriting.includes(method)) {
      return { ok: false, error: "is_archived" };
    }
    const isPosting = method === "chat.postMessage" || method === "chat.update";
    if (channel !== undefined && this.restrictedChannels.has(String(channel)) && isPosting) {
      return { ok: false, error: "restricted_action" };
    }
    const layoutRefusal = ["chat.postMessage", "chat.update", "chat.postEphemeral"].includes(method)
      ? this.layoutRefusal(method, args)
      : undefined;
    if (layoutRefusal) return layoutRefusal;
    switch (method) {
      case "auth.test":
        return {
          ok: true,
          url: "https://fake.slack.test/",
          team: "Fake team",
          team_id: identity.teamId,
          user: "imagehub",
          user_id: identity.botUserId,
          bot_id: `B${identity.botUserId}`,
        };
      case "apps.connections.open":
        if (!this.sockets) return { ok: false, error: "not_allowed_token_type" };
        return { ok: true, url: `${this.url.replace("http:", "ws:")}/socket` };
      case "chat.postMessage":
        return this.invalidSlackFile(args) ?? this.postMessage(args, identity);
      case "chat.update":
        return this.invalidSlackFile(args) ?? this.updateMessage(args, identity);
      case "usergroups.list": {
        if (this.workspacesWithoutUserGroups.has(identity.teamId)) {
          return { ok: false, error: "plan_upgrade_required" };
        }
        const usergroups = [...this.userGroups.keys()].map((id) => ({
          id,
          team_id: identity.teamId,
          handle: this.userGroupHandles.get(id) ?? id.toLowerCase(),
          name: this.userGroupHandles.get(id) ?? id,
        }));
        return { ok: true, usergroups };
      }
      case "usergroups.users.list": {
        if (this.workspacesWithoutUserGroups.has(identity.teamId)) {
          return { ok: false, error: "plan_upgrade_required" };
        }
        const members = this.userGroups.get(String(args.usergroup));
        if (!members) return { ok: false, error: "no_such_subteam" };
        return { ok: true, users: members };
      }
      case "chat.delete": {
        const message = this.messages.get(`${args.channel}/${args.ts}`);
        if (!message) return { ok: false, error: "message_not_found" };
        message.isDeleted = true;
        return { ok: true, channel: args.channel, ts: args.ts };
      }
      case "chat.postEphemeral":
        if (this.channelsNotJoined.has(String(args.channel))) return { ok: false, error: "not_in_channel" };
        if (this.channelMembers.get(String(args.channel))?.has(String(args.user)) === false) {
          return { ok: false, error: "user_not_in_channel" };
        }
        return { ok: true, message_ts: this.nextTs() };
      case "views.open":
        return this.openView(args);
      case "users.info": {
        const user = this.users.get(String(args.user));
        if (!user) return { ok: false, error: "user_not_found" };
        return {
          ok: true,
          user: { id: user.id, team_id: identity.teamId, is_admin: !!user.isAdmin, is_owner: !!user.isOwner },
        };
      }
      case "files.getUploadURLExternal": {
        const id = `F${String(this.nextSequence()).padStart(9, "0")}`;
        this.files.set(id, {
          id,
          filename: String(args.filename),
          length: Number(args.length),
          bytes: undefined,
        });
        return { ok: true, upload_url: `${this.url}/upload/${id}`, file_id: id };
      }
      case "files.completeUploadExternal":
        return this.completeUpload(args);
      default:
        return { ok: false, error: "unknown_method" };
    }
  }

  private openView(args: Record<string, unknown>): Record<string, unknown> {
    const trigger = this.triggers.get(String(args.trigger_id));
    if (!trigger) return { ok: false, error: "invalid_trigger_id" };
    if (Date.now() - trigger.issuedAt > TRIGGER_LIFETIME_MS)
      return { ok: false, error: "expired_trigger_id" };
    if (trigger.isUsed) return { ok: false, error: "trigger_exchanged" };
    const view = args.view as { blocks?: unknown };
    const refusal = this.layoutRefusal("views.open", view, "modal");
    if (refusal) return refusal;
    trigger.isUsed = true;
    return { ok: true, view: { ...view, id: `V${this.nextSequence()}` } };
  }

  /**
   * An image block may show a Slack file by its id when whoever posts may see it
   * (https://docs.slack.dev/reference/block-kit/composition-objects/slack-file-object): here, a file shared in
   * that channel; anything else is refused as Slack does, with invalid_blocks.
   */
  private invalidSlackFile(args: Record<string, unknown>): Record<string, unknown> | undefined {
    const blocks = (args.blocks ?? []) as SlackBlock[];
    for (const [index, block] of blocks.entries()) {
      const fileId = (block.slack_file as { id?: string } | undefined)?.id;
      if (block.type !== "image" || fileId === undefined) continue;
      if (this.files.get(fileId)?.channelId !== String(args.channel)) {
        return {
          ok: false,
          error: "invalid_blocks",
          errors: [`invalid slack file [json-pointer:/blocks/${index}/slack_file]`],
        };
      }
    }
    return undefined;
  }

  private postMessage(
    args: Record<string, unknown>,
    identity: { teamId: string; botUserId: string },
  ): Record<string, unknown> {
    // A user id as the channel posts in the app's conversation with that person.
    const target = String(args.channel);
    const channel = /^[UW]/.test(target) ? `D${identity.botUserId}${target}` : target;
    if (this.closedChannels.has(channel)) return { ok: false, error: "not_in_channel" };
    const ts = this.nextTs();
    if (args.text === undefined && args.blocks === undefined) return { ok: false, error: "no_text" };
    const content = { text: String(args.text ?? ""), blocks: (args.blocks ?? []) as SlackBlock[] };
    this.messages.set(`${channel}/${ts}`, {
      channel,
      ts,
      ...content,
      versions: [content],
      isDeleted: false,
      teamId: identity.teamId,
      postedBy: identity.botUserId,
    });
    return { ok: true, channel, ts, message: { ts, ...content } };
  }

  /**
   * A message of another workspace is one this token cannot see (channel_not_found); one of its own
   * workspace posted by someone else, one it may not update (cant_update_message).
   */
  private updateMessage(
    args: Record<string, unknown>,
    identity: { teamId: string; botUserId: string },
  ): Record<string, unknown> {
    const message = this.messages.get(`${args.channel}/${args.ts}`);
    if (message && message.teamId !== identity.teamId) return { ok: false, error: "channel_not_found" };
    if (!message || message.isDeleted) return { ok: false, error: "message_not_found" };
    if (message.postedBy !== identity.botUserId) return { ok: false, error: "cant_update_message" };
    const content = { text: String(args.text ?? ""), blocks: (args.blocks ?? []) as SlackBlock[] };
    Object.assign(message, content);
    message.versions.push(content);
    return { ok: true, channel: message.channel, ts: message.ts, text: content.text };
  }

  /** The bot's conversation with a person (its Messages tab), where posting to their user id goes. */
  directMessagesTo(userId: string, teamId?: string): FakeMessage[] {
    return [...this.messages.values()].filter(
      (message) =>
        message.channel.startsWith("D") &&
        message.channel.endsWith(userId) &&
        (teamId === undefined || message.teamId === teamId),
    );
  }

  private completeUpload(args: Record<string, unknown>): Record<string, unknown> {
    if (this.channelsNotJoined.has(String(args.channel_id))) return { ok: false, error: "not_in_channel" };
    const listed = args.files as { id: string; title?: string }[];
    const files = listed.map(({ id }) => this.files.get(id));
    if (files.some((file) => !file?.bytes)) return { ok: false, error: "file_not_found" };
    for (const file of files as FakeFile[]) {
      if (args.channel_id !== undefined) file.channelId = String(args.channel_id);
      if (args.thread_ts !== undefined) file.threadTs = String(args.thread_ts);
    }
    return { ok: true, files: listed.map(({ id, title }) => ({ id, title })) };
  }

  private oauthAccess(args: Record<string, unknown>): Record<string, unknown> {
    if (args.client_id !== FAKE_OAUTH_APP.clientId || args.client_secret !== FAKE_OAUTH_APP.clientSecret) {
      return { ok: false, error: "invalid_client_id" };
    }
    const grant = /^code-for-(.+)$/.exec(String(args.code));
    if (!grant?.[1]) return { ok: false, error: "invalid_code" };
    const teamId = grant[1];
    const token = `xoxb-installed-${teamId}`;
    this.addBotToken(token, teamId);
    return {
      ok: true,
      app_id: "AFAKE",
      authed_user: { id: "UINSTALLER" },
      scope: String(FAKE_OAUTH_APP.scopes),
      token_type: "bot",
      access_token: token,
      bot_user_id: `UBOT${teamId}`,
      team: { id: teamId, name: `Team ${teamId}` },
      enterprise: null,
      is_enterprise_install: false,
    };
  }

  /** The bytes of an upload: multipart, in the field the Slack SDK sends them in. */
  private async receiveUpload(
    fileId: string,
    request: IncomingMessage,
    body: Buffer,
    response: ServerResponse,
  ): Promise<void> {
    const file = this.files.get(fileId);
    if (!file) return answer(response, 404, { ok: false });
    const form = await new Response(new Uint8Array(body), {
      headers: { "content-type": request.headers["content-type"] ?? "" },
    }).formData();
    const part = [...form.values()].find((value) => typeof value !== "string");
    if (!part) return answer(response, 400, { ok: false });
    file.bytes = Buffer.from(await part.arrayBuffer());
    response.writeHead(200, { "content-type": "text/plain" }).end(`OK - ${file.bytes.length}`);
  }

  private nextSequence(): number {
    this.sequence += 1;
    return this.sequence;
  }

  private nextTs(): string {
    return `${1_700_000_000 + this.nextSequence()}.000100`;
  }
}

/** The OAuth app the fake knows: oauth.v2.access answers a grant `code-for-<team id>`. */
export const FAKE_OAUTH_APP = {
  clientId: "1111.2222",
  clientSecret: "fake-client-secret",
  scopes: "commands,chat:write,chat:write.public,files:write,users:read,usergroups:read",
};

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
