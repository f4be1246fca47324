import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import { type Budget, RateBudgets } from "../../../../tests/support/rate-budget.js";
import { DISCORD_LIMITS, type FormBodyError, formBodyErrors } from "./discord-form-body.js";
import {
  API_PREFIX,
  CHANNEL_REFUSALS,
  type FakeAttachment,
  type FakeMessage,
  type InteractionRecord,
  OLD_MESSAGE_MS,
  READ_MESSAGE_HISTORY,
  type RecordedCall,
  type RouteBudgets,
  readPayload,
} from "./discord-wire.js";
import { FakeDiscordGateway } from "./fake-discord-gateway.js";

export type { ChannelRefusal, FakeAttachment, FakeMessage, Member, RecordedCall } from "./discord-wire.js";
export { READ_MESSAGE_HISTORY } from "./discord-wire.js";

/**
 * A local stand-in for Discord, speaking its documented protocols so that the real discord.js runs
 * against it: the gateway over WebSocket (hello, identify, ready, guild create, heartbeats, dispatches)
 * and the REST routes the bot uses (interaction callbacks, webhook edits and follow-ups, channel message
 * edits, command registration). Messages are kept, attachments included, for tests to read.
 */
export class FakeDiscord extends FakeDiscordGateway {
  readonly registeredCommands = new Map<string, unknown[]>();

  /** The portal's "Public Bot" switch: anyone may invite the bot. */
  isBotPublic = false;

  /**
   * An interaction must be answered (or deferred) this soon, else Discord forgets it (10062 Unknown
   * interaction); its token then serves follow-ups and edits for 15 minutes (50027 Invalid Webhook Token).
   */
  interactionDeadlineMs = 3_000;

  tokenLifetimeMs = 15 * 60_000;

  /**
   * Edits of a message older than an hour: Discord allows few, then answers 30046 "Maximum number of edits
   * to messages older than 1 hour reached. Try again later" (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json).
   */
  oldMessageEditBudget: Budget = { limit: 3, windowMs: OLD_MESSAGE_MS };

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

  /**
   * One request in this many of the channel message routes answers 503, before doing anything, as Discord's
   * intermittent server errors do; undefined: none.
   */
  serverErrorEvery: number | undefined;

  /** The 503s answered. */
  serverErrors = 0;

  private channelRouteRequests = 0;

  /** Every 400 Invalid Form Body (50035) answered, with the request's path: a correct bot causes none. */
  readonly invalidFormBodies: { path: string; error: FormBodyError }[] = [];

  private constructor(
    private readonly server: Server,
    private readonly gateway: WebSocketServer,
  ) {
    super();
  }

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

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    this.gateway.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
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
      if (this.isServerErrorDue()) return send(503, { message: "Service Unavailable", code: 0 });
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

  private isServerErrorDue(): boolean {
    this.channelRouteRequests += 1;
    if (this.serverErrorEvery === undefined || this.channelRouteRequests % this.serverErrorEvery !== 0)
      return false;
    this.serverErrors += 1;
    return true;
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
}
