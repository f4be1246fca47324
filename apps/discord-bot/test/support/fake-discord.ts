import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { type Budget, RateBudgets } from "../../../../tests/support/rate-budget.js";
import { DISCORD_LIMITS, type FormBodyError, formBodyErrors } from "./discord-form-body.js";

/** A file Discord received with a message. */
export interface FakeAttachment {
  id: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

/** A message as the fake keeps it: what the bot sent, in Discord's JSON shape. */
export interface FakeMessage {
  id: string;
  channel_id: string;
  content: string;
  embeds: Array<{ title?: string; description?: string; fields?: { name: string; value: string }[] }>;
  components: Array<{ type: number; components: Array<{ type: number; custom_id: string; label: string }> }>;
  attachments: FakeAttachment[];
  flags: number;
  /** The embed's Status field after each change, in order. */
  statusHistory: string[];
  /** The embed's image after each change (undefined: none), in order. */
  imageHistory: (string | undefined)[];
  /** When it was posted (ms). */
  postedAt: number;
  /** Who a posted message may ping, and the message it replies to, as the bot sent them. */
  allowed_mentions?: { parse?: string[]; users?: string[] };
  message_reference?: { message_id: string };
}

export interface RecordedCall {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
  fileNames: string[];
  /** The HTTP status the fake answered. */
  status?: number;
}

interface InteractionRecord {
  id: string;
  token: string;
  createdAt: number;
  channelId: string;
  /** Discord takes one initial answer (callback) per interaction; a second is 40060. */
  isAcknowledged: boolean;
  /** The message an answer created, or the message a component sits on. */
  originalMessageId: string | undefined;
}

export interface Member {
  id: string;
  username: string;
  /** A permission bitfield as Discord sends it; every permission by default. */
  permissions?: string;
  /** The ids of the member's roles. */
  roles?: string[];
}

const API_PREFIX = "/api/v10";
const EPHEMERAL = 64;
const ALL_PERMISSIONS = "2251799813685247";
/** ADMINISTRATOR (1 << 3) overrides every channel's overwrites: a bot refused in a channel has not got it. */
const ADMINISTRATOR = 1n << 3n;
/** VIEW_CHANNEL (1 << 10): without it a channel is hidden from the bot. */
const VIEW_CHANNEL = 1n << 10n;
/** SEND_MESSAGES, EMBED_LINKS, ATTACH_FILES. */
const POSTING = (1n << 11n) | (1n << 14n) | (1n << 15n);
/** READ_MESSAGE_HISTORY (1 << 16): Discord refuses a reply (message_reference) without it, 160002. */
export const READ_MESSAGE_HISTORY = 1n << 16n;
/** A message older than this is edited on a budget of its own (30046 past it). */
const OLD_MESSAGE_MS = 3_600_000;

/**
 * Why Discord refuses the bot in a channel (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json):
 * hidden from it (no View Channel: 50001 Missing Access), or visible without the permissions to post,
 * embed or attach (50013 Missing Permissions). Interactions and their webhook still work there: they
 * do not act as the bot user.
 */
export type ChannelRefusal = "missing-access" | "missing-permissions";

const CHANNEL_REFUSALS: Record<
  ChannelRefusal,
  { code: number; message: string; withoutPermissions: bigint }
> = {
  "missing-access": {
    code: 50001,
    message: "Missing Access",
    withoutPermissions: ADMINISTRATOR | VIEW_CHANNEL | POSTING,
  },
  "missing-permissions": {
    code: 50013,
    message: "Missing Permissions",
    withoutPermissions: ADMINISTRATOR | POSTING,
  },
};

/**
 * Per-route budgets as Discord counts them, by bucket and top-level resource (the channel, or the
 * interaction's webhook token), with the figures observed on Discord for bots: 5 message edits or
 * creations per 5 s per channel, 5 interaction-webhook requests per 2 s per token
 * (https://discord.com/developers/docs/topics/rate-limits; Discord does not publish them and says not to
 * hard-code them: the X-RateLimit-* headers tell). Undefined: no limit on that bucket.
 */
export interface RouteBudgets {
  "channel-message-edit": Budget | undefined;
  "channel-message-create": Budget | undefined;
  "interaction-webhook": Budget | undefined;
}

/**
 * A local stand-in for Discord, speaking its documented protocols so that the real discord.js runs
 * against it: the gateway over WebSocket (hello, identify, ready, guild create, heartbeats, dispatches)
 * and the REST routes the bot uses (interaction callbacks, webhook edits and follow-ups, channel message
 * edits, command registration). Messages are kept, attachments included, for tests to read.
 */
export class FakeDiscord {
  readonly applicationId = "900000000000000001";
  readonly botUserId = "900000000000000002";
  readonly guildId = "900000000000000010";
  readonly channelId = "900000000000000020";
  readonly messages = new Map<string, FakeMessage>();
  readonly calls: RecordedCall[] = [];
  readonly registeredCommands = new Map<string, unknown[]>();
  /** The portal's "Public Bot" switch: anyone may invite the bot. */
  isBotPublic = false;
  /**
   * An interaction must be answered (or deferred) this soon, else Discord forgets it (10062 Unknown
   * interaction); its token then serves follow-ups and edits for 15 minutes (50027 Invalid Webhook Token).
   */
  interactionDeadlineMs = 3_000;
  tokenLifetimeMs = 15 * 60_000;
  /** A second text channel of the server, for tests that need two. */
  readonly otherChannelId = "900000000000000021";
  /** A second server the bot is in, with a channel of its own. */
  readonly otherGuildId = "900000000000000030";
  readonly otherGuildChannelId = "900000000000000031";
  /** Permissions the bot lacks in a channel, besides those of a refusal (e.g. READ_MESSAGE_HISTORY). */
  readonly channelPermissionsDenied = new Map<string, bigint>();
  /** Channels someone deleted: every route naming them answers 10003 Unknown Channel. */
  readonly deletedChannels = new Set<string>();
  /**
   * Edits of a message older than an hour: Discord allows few, then answers 30046 "Maximum number of edits
   * to messages older than 1 hour reached. Try again later" (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json).
   */
  oldMessageEditBudget: Budget = { limit: 3, windowMs: OLD_MESSAGE_MS };
  /** Direct messages the bot sent, by the user they went to. */
  readonly directMessages = new Map<string, FakeMessage[]>();
  /** The bot's DM channels, by channel id: the user each is with. */
  private readonly dmChannels = new Map<string, string>();
  readonly routeBudgets: RouteBudgets = {
    "channel-message-edit": { limit: 5, windowMs: 5_000 },
    "channel-message-create": { limit: 5, windowMs: 5_000 },
    "interaction-webhook": { limit: 5, windowMs: 2_000 },
  };
  /**
   * The global limit: 50 requests per second per bot, across routes; interaction callbacks and their
   * webhook are not bound to it (https://discord.com/developers/docs/topics/rate-limits#global-rate-limit).
   */
  globalBudget: Budget | undefined = { limit: 50, windowMs: 1_000 };
  /** Every 429 answered, by bucket and resource (`global` for the global limit). */
  readonly budgets = new RateBudgets();
  /** Channels that refuse the bot user, and how. */
  readonly channelRefusals = new Map<string, ChannelRefusal>();
  /** Every 400 Invalid Form Body (50035) answered, with the request's path: a correct bot causes none. */
  readonly invalidFormBodies: { path: string; error: FormBodyError }[] = [];
  private readonly interactions = new Map<string, InteractionRecord>();
  /** Follow-up message ids by interaction token. */
  private readonly followUps = new Map<string, string[]>();
  private readonly sockets = new Set<WebSocket>();
  /** Sessions that identified (READY sent): they receive the dispatches. */
  private readonly identified = new Set<WebSocket>();
  private nextId = 1000n;
  private sequence = 0;

  private constructor(
    private readonly server: Server,
    private readonly gateway: WebSocketServer,
  ) {}

  static async start(): Promise<FakeDiscord> {
    const server = createServer();
    const gateway = new WebSocketServer({ noServer: true });
    const fake = new FakeDiscord(server, gateway);
    server.on("request", (request, response) => {
      fake.route(request, response).catch((error: unknown) => {
        response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ message: String(error), code: 0 }));
      });
    });
    server.on("upgrade", (request, socket, head) => {
      gateway.handleUpgrade(request, socket, head, (webSocket) => fake.openSession(webSocket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** What discord.js takes as its REST `api` option. */
  get apiUrl(): string {
    return `${this.url}/api`;
  }

  /** The edit budget of each channel (bucket `channel-message-edit`). */
  get editBudget(): Budget | undefined {
    return this.routeBudgets["channel-message-edit"];
  }

  set editBudget(budget: Budget | undefined) {
    this.routeBudgets["channel-message-edit"] = budget;
  }

  /** The 429s answered, by bucket and resource. */
  get rateLimited(): ReadonlyMap<string, number> {
    return this.budgets.refused;
  }

  /** Someone deletes a message: later edits of it answer 10008 Unknown Message. */
  deleteMessage(messageId: string): void {
    this.messages.delete(messageId);
  }

  /** Someone deletes a channel: later calls naming it answer 10003 Unknown Channel. */
  deleteChannel(channelId: string): void {
    this.deletedChannels.add(channelId);
  }

  /** Makes a message as old as if it had been posted `ms` ago. */
  ageMessage(messageId: string, ms: number): void {
    const message = this.messages.get(messageId);
    if (message) message.postedAt -= ms;
  }

  /** Sessions currently connected to the gateway (one per running bot). */
  get connectedSessions(): number {
    return [...this.sockets].filter((socket) => socket.readyState === WebSocket.OPEN).length;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    this.gateway.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Sends a slash command to the bot, as Discord does when a member runs it; answers its id. */
  runCommand(
    name: string,
    options: { name: string; type: number; value?: unknown; options?: unknown[] }[],
    member: Member,
    channelId = this.channelId,
  ): string {
    return this.interact(
      2,
      { id: this.snowflake(), name, type: 1, options, ...resolvedOf(options) },
      member,
      undefined,
      channelId,
    );
  }

  /**
   * Sends a slash command from a person's direct messages with the bot (Discord's BOT_DM context: no guild,
   * no member, the user alone); answers its id.
   */
  runCommandInDirect(
    name: string,
    options: { name: string; type: number; value?: unknown; options?: unknown[] }[],
    user: Member,
  ): string {
    return this.interact(
      2,
      { id: this.snowflake(), name, type: 1, options, ...resolvedOf(options) },
      user,
      undefined,
      this.directChannelWith(user.id),
    );
  }

  /** The bot's DM channel with a person, opened on first use as POST /users/@me/channels does. */
  directChannelWith(userId: string): string {
    const known = [...this.dmChannels].find(([, recipient]) => recipient === userId)?.[0];
    if (known !== undefined) return known;
    const channelId = this.snowflake();
    this.dmChannels.set(channelId, userId);
    return channelId;
  }

  /** Clicks a button of a message the bot posted; answers the interaction's id. */
  clickButton(messageId: string, customId: string, member: Member): string {
    const message = this.messages.get(messageId);
    if (!message) throw new Error(`no message ${messageId}`);
    // Discord sends a click only for a button the message holds: any other custom_id is never seen.
    const buttons = message.components.flatMap((row) => row.components.map((button) => button.custom_id));
    if (!buttons.includes(customId)) throw new Error(`the message ${messageId} has no button ${customId}`);
    return this.interact(3, { custom_id: customId, component_type: 2 }, member, message);
  }

  /** The message that answers an interaction (its reply), or the one its button sits on. */
  answerTo(interactionId: string): FakeMessage | undefined {
    const record = this.interactions.get(interactionId);
    return record?.originalMessageId === undefined ? undefined : this.messages.get(record.originalMessageId);
  }

  /** What the person who acted sees last: a follow-up, else the answer (e.g. a refusal after a deferral). */
  lastAnswerTo(interactionId: string): FakeMessage | undefined {
    return this.followUpsTo(interactionId).at(-1) ?? this.answerTo(interactionId);
  }

  /** Follow-up messages sent for an interaction. */
  followUpsTo(interactionId: string): FakeMessage[] {
    const token = this.interactions.get(interactionId)?.token ?? "";
    return (this.followUps.get(token) ?? [])
      .map((id) => this.messages.get(id))
      .filter((message): message is FakeMessage => message !== undefined);
  }

  private interact(
    type: number,
    data: unknown,
    member: Member,
    message?: FakeMessage,
    channelId = message?.channel_id ?? this.channelId,
  ): string {
    const id = this.snowflake();
    const token = `token-${id}`;
    this.interactions.set(id, {
      id,
      token,
      createdAt: Date.now(),
      channelId,
      isAcknowledged: false,
      originalMessageId: message?.id,
    });
    const user = {
      id: member.id,
      username: member.username,
      discriminator: "0",
      global_name: null,
      avatar: null,
    };
    if (this.dmChannels.has(channelId)) {
      this.dispatch("INTERACTION_CREATE", {
        id,
        application_id: this.applicationId,
        type,
        data,
        channel_id: channelId,
        channel: { id: channelId, type: 1, recipients: [user] },
        user,
        token,
        version: 1,
        app_permissions: ALL_PERMISSIONS,
        locale: "en-US",
        entitlements: [],
        authorizing_integration_owners: { "0": this.guildId },
        context: 1,
        ...(message && { message: this.toJson(message) }),
      });
      return id;
    }
    const appPermissions = String(this.botPermissionsIn(channelId));
    const guildId = this.guildOf(channelId);
    this.dispatch("INTERACTION_CREATE", {
      id,
      application_id: this.applicationId,
      type,
      data,
      guild_id: guildId,
      guild: { id: guildId, locale: "en-US", features: [] },
      channel_id: channelId,
      channel: { id: channelId, type: 0, guild_id: guildId, name: this.channelName(channelId) },
      member: {
        user,
        roles: member.roles ?? [],
        permissions: member.permissions ?? ALL_PERMISSIONS,
        joined_at: "2026-01-01T00:00:00.000Z",
        deaf: false,
        mute: false,
        flags: 0,
      },
      token,
      version: 1,
      app_permissions: appPermissions,
      locale: "en-US",
      guild_locale: "en-US",
      entitlements: [],
      authorizing_integration_owners: { "0": guildId },
      context: 0,
      ...(message && { message: this.toJson(message) }),
    });
    return id;
  }

  private openSession(socket: WebSocket): void {
    this.sockets.add(socket);
    socket.on("close", () => {
      this.sockets.delete(socket);
      this.identified.delete(socket);
    });
    socket.on("message", (raw) => {
      const packet = JSON.parse(String(raw)) as { op: number; d: unknown };
      if (packet.op === 1) socket.send(JSON.stringify({ op: 11, d: null }));
      if (packet.op === 2) this.ready(socket);
    });
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 45_000 } }));
  }

  private ready(socket: WebSocket): void {
    const send = (t: string, d: unknown) => this.dispatch(t, d, socket);
    send("READY", {
      v: 10,
      user: this.botUser(),
      guilds: [this.guildId, this.otherGuildId].map((id) => ({ id, unavailable: true })),
      session_id: `session-${this.snowflake()}`,
      resume_gateway_url: this.url.replace("http", "ws"),
      shard: [0, 1],
      application: { id: this.applicationId, flags: 0 },
    });
    for (const [guildId, channelIds] of [
      [this.guildId, [this.channelId, this.otherChannelId]],
      [this.otherGuildId, [this.otherGuildChannelId]],
    ] as const) {
      send("GUILD_CREATE", this.guildJson(guildId, channelIds));
    }
    this.identified.add(socket);
  }

  private guildJson(guildId: string, channelIds: readonly string[]) {
    return {
      id: guildId,
      name: `Server ${guildId.slice(-2)}`,
      icon: null,
      owner_id: "1",
      roles: [
        {
          id: guildId,
          name: "@everyone",
          permissions: "0",
          position: 0,
          color: 0,
          hoist: false,
          managed: false,
          mentionable: false,
          flags: 0,
        },
      ],
      emojis: [],
      stickers: [],
      features: [],
      channels: channelIds.map((id, position) => ({
        id,
        type: 0,
        name: this.channelName(id),
        position,
        permission_overwrites: [],
      })),
      threads: [],
      members: [],
      presences: [],
      voice_states: [],
      stage_instances: [],
      guild_scheduled_events: [],
      member_count: 2,
      joined_at: "2026-01-01T00:00:00.000Z",
      large: false,
      unavailable: false,
      premium_tier: 0,
      preferred_locale: "en-US",
    };
  }

  /** The server a channel belongs to. */
  private guildOf(channelId: string): string {
    return channelId === this.otherGuildChannelId ? this.otherGuildId : this.guildId;
  }

  /** What the bot may do in a channel: everything, but what a refusal or a denial takes away. */
  private botPermissionsIn(channelId: string): bigint {
    const refusal = this.channelRefusals.get(channelId);
    const withoutRefused = refusal ? CHANNEL_REFUSALS[refusal].withoutPermissions : 0n;
    const denied = this.channelPermissionsDenied.get(channelId) ?? 0n;
    return BigInt(ALL_PERMISSIONS) & ~withoutRefused & ~(denied === 0n ? 0n : denied | ADMINISTRATOR);
  }

  /**
   * Sends a gateway event to the given session, or else to every session of the bot: Discord gives each
   * session connected on a shard every event of that shard, so replicas of one bot all receive each
   * interaction (https://discord.com/developers/docs/events/gateway#sharding).
   */
  private dispatch(t: string, d: unknown, to?: WebSocket): void {
    const sockets = to
      ? [to]
      : [...this.identified].filter((candidate) => candidate.readyState === WebSocket.OPEN);
    if (sockets.length === 0) throw new Error("no bot is connected to the gateway");
    this.sequence += 1;
    for (const socket of sockets) socket.send(JSON.stringify({ op: 0, t, s: this.sequence, d }));
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", this.url);
    const path = decodeURIComponent(url.pathname).slice(API_PREFIX.length);
    const { body, files } = await readPayload(request);
    const method = request.method ?? "GET";
    const call: RecordedCall = { method, path, body, fileNames: files.map((file) => file.filename) };
    this.calls.push(call);
    const send = (status: number, json?: unknown) => {
      call.status = status;
      if (json === undefined) return void response.writeHead(status).end();
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
    };

    if (method === "GET" && path === "/gateway/bot") {
      return send(200, {
        url: this.url.replace("http", "ws"),
        shards: 1,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
      });
    }
    if (method === "GET" && path === "/applications/@me") {
      return send(200, {
        id: this.applicationId,
        name: "imagehub",
        icon: null,
        description: "",
        bot_public: this.isBotPublic,
        bot_require_code_grant: false,
        flags: 0,
        bot: this.botUser(),
      });
    }
    const isInteractionRoute = path.startsWith("/interactions/") || path.startsWith("/webhooks/");
    if (!isInteractionRoute) {
      const limited = this.spend(response, "global", this.globalBudget, true);
      if (limited) return send(429, limited);
    }
    // Writes are checked before anything else happens: Discord refuses the whole request.
    const written = path.includes("/callback") ? ((body?.data ?? {}) as Record<string, unknown>) : body;
    if ((method === "POST" || method === "PATCH") && written) {
      const tooLarge = files.reduce((sum, file) => sum + file.data.length, 0) > DISCORD_LIMITS.uploadBytes;
      if (tooLarge) return send(413, { message: "Request entity too large", code: 40005 });
      const invalid = formBodyErrors(written);
      if (invalid) {
        this.invalidFormBodies.push({ path, error: invalid });
        return send(400, invalid);
      }
    }

    const callback = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path);
    if (method === "POST" && callback) {
      const record = this.interactions.get(callback[1] as string);
      const isLate = record !== undefined && Date.now() - record.createdAt > this.interactionDeadlineMs;
      if (!record || record.token !== callback[2] || isLate) {
        return send(404, { message: "Unknown interaction", code: 10062 });
      }
      if (record.isAcknowledged) {
        return send(400, { message: "Interaction has already been acknowledged.", code: 40060 });
      }
      record.isAcknowledged = true;
      const message = this.answerInteraction(record, body ?? {}, files);
      if (url.searchParams.get("with_response") !== "true") return send(204);
      return send(200, {
        interaction: { id: record.id, type: 2, response_message_id: message?.id },
        resource: {
          type: (body as { type: number }).type,
          ...(message && { message: this.toJson(message) }),
        },
      });
    }
    const token = new RegExp(`^/webhooks/${this.applicationId}/([^/]+)`).exec(path)?.[1];
    if (token !== undefined) {
      const tokenRecord = [...this.interactions.values()].find((candidate) => candidate.token === token);
      if (!tokenRecord || Date.now() - tokenRecord.createdAt > this.tokenLifetimeMs) {
        return send(401, { message: "Invalid Webhook Token", code: 50027 });
      }
      const limited = this.spend(
        response,
        "interaction-webhook",
        this.routeBudgets["interaction-webhook"],
        false,
        token,
      );
      if (limited) return send(429, limited);
      return this.routeInteractionWebhook(method, path, tokenRecord, body ?? {}, files, send);
    }
    if (method === "POST" && path === "/users/@me/channels") {
      const recipient = String(body?.recipient_id ?? "");
      return send(200, { id: this.directChannelWith(recipient), type: 1, recipients: [{ id: recipient }] });
    }
    const channelRoute = /^\/channels\/(\d+)\/messages(?:\/(\d+))?$/.exec(path);
    if (channelRoute) {
      const [, channelId = "", messageId] = channelRoute;
      if (this.deletedChannels.has(channelId)) return send(404, { message: "Unknown Channel", code: 10003 });
      const recipient = this.dmChannels.get(channelId);
      if (recipient !== undefined && method === "POST" && messageId === undefined) {
        const message = this.createMessage(channelId, body ?? {}, files);
        this.directMessages.set(recipient, [...(this.directMessages.get(recipient) ?? []), message]);
        return send(200, this.toJson(message));
      }
      const refusal = this.channelRefusals.get(channelId);
      if (refusal) {
        const { code, message } = CHANNEL_REFUSALS[refusal];
        return send(403, { message, code });
      }
      const isReply = method === "POST" && body?.message_reference !== undefined;
      if (isReply && (this.botPermissionsIn(channelId) & READ_MESSAGE_HISTORY) === 0n) {
        return send(403, {
          message: "Cannot reply without permission to read message history",
          code: 160002,
        });
      }
      const bucket = method === "POST" ? "channel-message-create" : "channel-message-edit";
      const limited = this.spend(response, bucket, this.routeBudgets[bucket], false, channelId);
      if (limited) return send(429, limited);
      if (method === "POST" && messageId === undefined) {
        return send(200, this.toJson(this.createMessage(channelId, body ?? {}, files)));
      }
      const message = this.messages.get(messageId ?? "");
      if (!message || message.channel_id !== channelId) {
        return send(404, { message: "Unknown Message", code: 10008 });
      }
      if (method === "DELETE") {
        this.messages.delete(message.id);
        return send(204);
      }
      if (method === "PATCH") {
        if (Date.now() - message.postedAt > OLD_MESSAGE_MS) {
          const old = this.budgets.spend(`old-message-edit:${message.id}`, this.oldMessageEditBudget);
          if (old.isRefused) {
            return send(400, {
              message: "Maximum number of edits to messages older than 1 hour reached. Try again later",
              code: 30046,
            });
          }
        }
        this.editMessage(message, body ?? {}, files);
        return send(200, this.toJson(message));
      }
    }
    const commands = /^\/applications\/(\d+)(?:\/guilds\/(\d+))?\/commands$/.exec(path);
    if (method === "PUT" && commands) {
      const registered = (body as unknown as unknown[]).map((command) => ({
        ...(command as object),
        id: this.snowflake(),
        application_id: this.applicationId,
        version: "1",
      }));
      this.registeredCommands.set(commands[2] ?? "global", registered);
      return send(200, registered);
    }
    send(404, { message: `fake Discord has no route ${method} ${path}`, code: 0 });
  }

  /** Follow-ups and the original answer of an interaction, through its token. */
  private routeInteractionWebhook(
    method: string,
    path: string,
    record: InteractionRecord,
    body: Record<string, unknown>,
    files: FakeAttachment[],
    send: (status: number, json?: unknown) => void,
  ): void {
    const prefix = `/webhooks/${this.applicationId}/${record.token}`;
    if (path === `${prefix}/messages/@original`) {
      const message =
        record.originalMessageId === undefined ? undefined : this.messages.get(record.originalMessageId);
      if (!message) {
        send(404, { message: "Unknown Message", code: 10008 });
        return;
      }
      if (method === "DELETE") {
        this.messages.delete(message.id);
        send(204);
        return;
      }
      if (method === "PATCH") this.editMessage(message, body, files);
      send(200, this.toJson(message));
      return;
    }
    if (method === "POST" && path === prefix) {
      const message = this.createMessage(record.channelId, body, files);
      this.followUps.set(record.token, [...(this.followUps.get(record.token) ?? []), message.id]);
      send(200, this.toJson(message));
      return;
    }
    send(404, { message: `fake Discord has no route ${method} ${path}`, code: 0 });
  }

  /**
   * Spends one request of a bucket's budget, setting Discord's rate-limit headers; answers the 429 body when
   * the budget is spent (https://discord.com/developers/docs/topics/rate-limits#header-format).
   */
  private spend(
    response: ServerResponse,
    bucket: string,
    budget: Budget | undefined,
    isGlobal: boolean,
    resource = "",
  ): Record<string, unknown> | undefined {
    if (!budget) return undefined;
    const spending = this.budgets.spend(isGlobal ? bucket : `${bucket}:${resource}`, budget);
    const resetAfter = spending.resetAfterMs / 1000;
    if (!isGlobal) {
      response.setHeader("x-ratelimit-limit", String(budget.limit));
      response.setHeader("x-ratelimit-remaining", String(spending.remaining));
      response.setHeader("x-ratelimit-reset", String(spending.resetAt / 1000));
      response.setHeader("x-ratelimit-reset-after", resetAfter.toFixed(3));
      response.setHeader("x-ratelimit-bucket", bucket);
    }
    if (!spending.isRefused) return undefined;
    response.setHeader("retry-after", String(Math.ceil(resetAfter)));
    response.setHeader("x-ratelimit-scope", isGlobal ? "global" : "user");
    if (isGlobal) response.setHeader("x-ratelimit-global", "true");
    return { message: "You are being rate limited.", retry_after: resetAfter, global: isGlobal };
  }

  /** Interaction response types: 4 message, 5 deferred message, 6 deferred update, 7 update. */
  private answerInteraction(
    record: InteractionRecord,
    body: Record<string, unknown>,
    files: FakeAttachment[],
  ): FakeMessage | undefined {
    const type = body.type as number;
    const data = (body.data ?? {}) as Record<string, unknown>;
    if (type === 4 || type === 5) {
      const message = this.createMessage(record.channelId, data, files);
      record.originalMessageId = message.id;
      return message;
    }
    const onMessage =
      record.originalMessageId === undefined ? undefined : this.messages.get(record.originalMessageId);
    if (type === 7 && onMessage) this.editMessage(onMessage, data, files);
    return onMessage;
  }

  private createMessage(
    channelId: string,
    data: Record<string, unknown>,
    files: FakeAttachment[],
  ): FakeMessage {
    const message: FakeMessage = {
      id: this.snowflake(),
      channel_id: channelId,
      content: "",
      embeds: [],
      components: [],
      attachments: [],
      flags: Number(data.flags ?? 0) & EPHEMERAL,
      statusHistory: [],
      imageHistory: [],
      postedAt: Date.now(),
    };
    if (data.allowed_mentions)
      message.allowed_mentions = data.allowed_mentions as FakeMessage["allowed_mentions"];
    if (data.message_reference) message.message_reference = data.message_reference as { message_id: string };
    this.messages.set(message.id, message);
    this.applyChanges(message, data, files);
    return message;
  }

  private editMessage(message: FakeMessage, data: Record<string, unknown>, files: FakeAttachment[]): void {
    this.applyChanges(message, data, files);
  }

  /** Fields absent from an edit stay as they were; `attachments` lists what to keep and the new files. */
  private applyChanges(message: FakeMessage, data: Record<string, unknown>, files: FakeAttachment[]): void {
    if (typeof data.content === "string") message.content = data.content;
    if (Array.isArray(data.embeds)) {
      message.embeds = data.embeds as FakeMessage["embeds"];
      const status = message.embeds[0]?.fields?.find((field) => field.name === "Status")?.value;
      if (status !== undefined) message.statusHistory.push(status);
      message.imageHistory.push((message.embeds[0] as { image?: { url?: string } } | undefined)?.image?.url);
    }
    if (Array.isArray(data.components)) message.components = data.components as FakeMessage["components"];
    if (Array.isArray(data.attachments)) {
      const kept = message.attachments.filter((attachment) =>
        (data.attachments as { id: unknown }[]).some((listed) => String(listed.id) === attachment.id),
      );
      message.attachments = [...kept, ...files.map((file) => ({ ...file, id: this.snowflake() }))];
    } else if (files.length > 0) {
      message.attachments = [
        ...message.attachments,
        ...files.map((file) => ({ ...file, id: this.snowflake() })),
      ];
    }
  }

  private toJson(message: FakeMessage) {
    return {
      id: message.id,
      type: 0,
      channel_id: message.channel_id,
      author: this.botUser(),
      content: message.content,
      embeds: message.embeds,
      components: message.components,
      attachments: message.attachments.map((attachment) => ({
        id: attachment.id,
        filename: attachment.filename,
        size: attachment.data.length,
        content_type: attachment.contentType,
        url: `${this.url}/attachments/${attachment.id}/${attachment.filename}`,
        proxy_url: `${this.url}/attachments/${attachment.id}/${attachment.filename}`,
      })),
      flags: message.flags,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      pinned: false,
      webhook_id: this.applicationId,
      application_id: this.applicationId,
    };
  }

  private channelName(channelId: string): string {
    return channelId === this.channelId ? "general" : `channel-${channelId.slice(-2)}`;
  }

  private botUser() {
    return {
      id: this.botUserId,
      username: "imagehub",
      discriminator: "0",
      bot: true,
      avatar: null,
      global_name: null,
    };
  }

  private snowflake(): string {
    this.nextId += 1n;
    return (BigInt(Date.now() - 1_420_070_400_000) * 4_194_304n + this.nextId).toString();
  }
}

/** Discord's option type of a role, whose id comes with the role itself in `resolved`. */
const ROLE_OPTION = 8;

/**
 * Discord sends the roles that options name in the interaction's `resolved` data
 * (https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-resolved-data-structure).
 */
function resolvedOf(options: { type: number; value?: unknown; options?: unknown[] }[]) {
  const roleIds: string[] = [];
  const visit = (list: { type: number; value?: unknown; options?: unknown[] }[]) => {
    for (const option of list) {
      if (option.type === ROLE_OPTION) roleIds.push(String(option.value));
      if (option.options) visit(option.options as typeof list);
    }
  };
  visit(options);
  if (roleIds.length === 0) return {};
  const role = (id: string) => ({
    id,
    name: `role ${id}`,
    color: 0,
    hoist: false,
    position: 1,
    permissions: "0",
    managed: false,
    mentionable: false,
    flags: 0,
  });
  return { resolved: { roles: Object.fromEntries(roleIds.map((id) => [id, role(id)])) } };
}

/** A request's JSON body, or its multipart `payload_json` and files, as discord.js sends them. */
async function readPayload(
  request: IncomingMessage,
): Promise<{ body: Record<string, unknown> | undefined; files: FakeAttachment[] }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  const raw = Buffer.concat(chunks);
  const type = request.headers["content-type"] ?? "";
  if (raw.length === 0) return { body: undefined, files: [] };
  if (!type.startsWith("multipart/form-data")) return { body: JSON.parse(raw.toString("utf8")), files: [] };
  const form = await new Request("http://fake.local", {
    method: "POST",
    headers: { "content-type": type },
    body: raw,
  }).formData();
  const files: FakeAttachment[] = [];
  for (const [name, value] of form.entries()) {
    if (name.startsWith("files[") && typeof value !== "string") {
      files.push({
        id: "",
        filename: value.name,
        contentType: value.type,
        data: Buffer.from(await value.arrayBuffer()),
      });
    }
  }
  const payload = form.get("payload_json");
  return { body: typeof payload === "string" ? JSON.parse(payload) : undefined, files };
}
