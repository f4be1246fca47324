import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import { FakeSlackState } from "./fake-slack-state.js";
import {
  answer,
  FAKE_OAUTH_APP,
  JSON_ARGUMENTS,
  METHOD_SCOPES,
  RESPONSE_URL_LIFETIME_MS,
  RESPONSE_URL_USES,
  type ResponseUrlPost,
  readBody,
  type SlackBlock,
  type SlackCall,
} from "./slack-wire.js";

export type {
  FakeFile,
  FakeMessage,
  FakeUser,
  ResponseUrlPost,
  SlackBlock,
  SlackCall,
} from "./slack-wire.js";
export { DOCUMENTED_BUDGETS, FAKE_OAUTH_APP, POST_MESSAGE_BUDGET } from "./slack-wire.js";

/**
 * A local stand-in for Slack's Web API (https://docs.slack.dev/reference/methods): the methods the bot
 * calls, answered in their documented shape (`ok`, `error`), tokens checked, every call recorded. It also
 * serves the upload URLs files.getUploadURLExternal hands out, and response_urls.
 */
export class FakeSlack extends FakeSlackState {
  /** Socket Mode: the connections apps.connections.open handed out, and the acks awaited on them. */
  private sockets: WebSocketServer | undefined;

  private readonly socketClients = new Set<WebSocket>();

  private readonly pendingAcks = new Map<string, (payload: Record<string, unknown>) => void>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {
    super();
  }

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
      if (this.isServerErrorDue(call)) {
        call.error = "service_unavailable";
        return answer(response, 503, { ok: false, error: "service_unavailable" });
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
          user: {
            id: user.id,
            team_id: identity.teamId,
            is_admin: !!user.isAdmin,
            is_owner: !!user.isOwner,
            // Slack tells a user's locale only to whoever asks for it.
            ...(String(args.include_locale) === "true" && { locale: user.locale ?? "en-US" }),
          },
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
}
