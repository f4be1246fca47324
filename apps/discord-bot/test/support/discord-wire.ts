import type { IncomingMessage } from "node:http";
import type { Budget } from "../../../../tests/support/rate-budget.js";

/** Discord's shapes and rules as the fake Discord speaks them: messages, refusals, budgets, request bodies. */

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

export interface InteractionRecord {
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
  /** The language of their Discord client, sent with each interaction; "en-US" by default. */
  locale?: string;
}

export const API_PREFIX = "/api/v10";
export const EPHEMERAL = 64;
export const ALL_PERMISSIONS = "2251799813685247";
/** ADMINISTRATOR (1 << 3) overrides every channel's overwrites: a bot refused in a channel has not got it. */
export const ADMINISTRATOR = 1n << 3n;
/** VIEW_CHANNEL (1 << 10): without it a channel is hidden from the bot. */
export const VIEW_CHANNEL = 1n << 10n;
/** SEND_MESSAGES, EMBED_LINKS, ATTACH_FILES. */
export const POSTING = (1n << 11n) | (1n << 14n) | (1n << 15n);
/** READ_MESSAGE_HISTORY (1 << 16): Discord refuses a reply (message_reference) without it, 160002. */
export const READ_MESSAGE_HISTORY = 1n << 16n;
/** A message older than this is edited on a budget of its own (30046 past it). */
export const OLD_MESSAGE_MS = 3_600_000;

/**
 * Why Discord refuses the bot in a channel (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json):
 * hidden from it (no View Channel: 50001 Missing Access), or visible without the permissions to post,
 * embed or attach (50013 Missing Permissions). Interactions and their webhook still work there: they
 * do not act as the bot user.
 */
export type ChannelRefusal = "missing-access" | "missing-permissions";

export const CHANNEL_REFUSALS: Record<
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

/** Discord's option type of a role, whose id comes with the role itself in `resolved`. */
export const ROLE_OPTION = 8;

/**
 * Discord sends the roles that options name in the interaction's `resolved` data
 * (https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-resolved-data-structure).
 */
export function resolvedOf(options: { type: number; value?: unknown; options?: unknown[] }[]) {
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
export async function readPayload(
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
