import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";

/** One Web API call as the bot made it: the method, the token it sent, its arguments (JSON fields parsed). */
export interface SlackCall {
  method: string;
  token: string | undefined;
  args: Record<string, unknown>;
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
  /** The error the next call of a method answers, once. */
  readonly nextErrors = new Map<string, string>();
  private readonly tokens = new Map<string, { teamId: string; botUserId: string }>();
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

  /** A bot token this fake accepts, for a workspace. */
  addBotToken(token: string, teamId: string): void {
    this.tokens.set(token, { teamId, botUserId: `UBOT${teamId}` });
  }

  /**
   * Accepts an app-level token for Socket Mode: apps.connections.open then answers a WebSocket URL on
   * this server, which greets each connection with `hello` as Slack does.
   */
  enableSocketMode(appToken: string): void {
    this.tokens.set(appToken, { teamId: "", botUserId: "" });
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
    return `${this.url}/responses/${this.sequence}`;
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
      return answer(response, 200, this.apiMethod(call));
    }
    if (path.startsWith("/upload/"))
      return this.receiveUpload(path.slice("/upload/".length), request, body, response);
    if (path.startsWith("/responses/")) {
      this.responses.push({
        responseUrl: `${this.url}${path}`,
        body: JSON.parse(body.toString("utf8")) as ResponseUrlPost["body"],
      });
      return answer(response, 200, { ok: true });
    }
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

  private apiMethod({ method, token, args }: SlackCall): Record<string, unknown> {
    if (method === "oauth.v2.access") return this.oauthAccess(args);
    const nextError = this.nextErrors.get(method);
    if (nextError !== undefined) {
      this.nextErrors.delete(method);
      return { ok: false, error: nextError };
    }
    const identity = token === undefined ? undefined : this.tokens.get(token);
    if (!identity) return { ok: false, error: token === undefined ? "not_authed" : "invalid_auth" };
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
        return this.postMessage(args);
      case "chat.update":
        return this.updateMessage(args);
      case "chat.delete": {
        const message = this.messages.get(`${args.channel}/${args.ts}`);
        if (!message) return { ok: false, error: "message_not_found" };
        message.isDeleted = true;
        return { ok: true, channel: args.channel, ts: args.ts };
      }
      case "chat.postEphemeral":
        if (this.channelsNotJoined.has(String(args.channel))) return { ok: false, error: "not_in_channel" };
        return { ok: true, message_ts: this.nextTs() };
      case "views.open":
        return { ok: true, view: { ...(args.view as object), id: `V${this.nextSequence()}` } };
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

  private postMessage(args: Record<string, unknown>): Record<string, unknown> {
    const channel = String(args.channel);
    if (this.closedChannels.has(channel)) return { ok: false, error: "not_in_channel" };
    const ts = this.nextTs();
    const content = { text: String(args.text ?? ""), blocks: (args.blocks ?? []) as SlackBlock[] };
    this.messages.set(`${channel}/${ts}`, { channel, ts, ...content, versions: [content], isDeleted: false });
    return { ok: true, channel, ts, message: { ts, ...content } };
  }

  private updateMessage(args: Record<string, unknown>): Record<string, unknown> {
    const message = this.messages.get(`${args.channel}/${args.ts}`);
    if (!message || message.isDeleted) return { ok: false, error: "message_not_found" };
    const content = { text: String(args.text ?? ""), blocks: (args.blocks ?? []) as SlackBlock[] };
    Object.assign(message, content);
    message.versions.push(content);
    return { ok: true, channel: message.channel, ts: message.ts, text: content.text };
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
  scopes: "commands,chat:write,chat:write.public,files:write,users:read",
};

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
