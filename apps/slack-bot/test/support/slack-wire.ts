import type { IncomingMessage, ServerResponse } from "node:http";
import type { Budget } from "../../../../tests/support/rate-budget.js";

/** Slack's shapes and rules as the fake Slack speaks them: calls, messages, budgets, scopes, bodies. */

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
  /** Their Slack client's language (e.g. "fr-FR"); "en-US" by default. */
  locale?: string;
}

/** Arguments Slack's Web API takes as JSON text inside a form body. */
export const JSON_ARGUMENTS = new Set(["blocks", "view", "files", "attachments"]);

/**
 * Slack's rate limits, per method per workspace per app (https://docs.slack.dev/apis/web-api/rate-limits):
 * Tier 2 20+ per minute, Tier 3 50+ per minute, Tier 4 100+ per minute, "sporadic bursts welcome";
 * chat.postMessage "generally allows one message per second per channel" with short bursts. Kept here as
 * budgets that refill steadily with a burst of their size (3 per 3 s for a channel's posts). Beyond them
 * Slack answers HTTP 429 with Retry-After (whole seconds) and `ratelimited`. Tiers from each method's page.
 */
export const TIER_2: Budget = { limit: 20, windowMs: 60_000 };
export const TIER_3: Budget = { limit: 50, windowMs: 60_000 };
export const TIER_4: Budget = { limit: 100, windowMs: 60_000 };
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
export const METHOD_SCOPES: Record<string, string> = {
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
export const TRIGGER_LIFETIME_MS = 3_000;
/** A response_url takes 5 posts within 30 minutes (https://docs.slack.dev/interactivity/handling-user-interaction#message_responses). */
export const RESPONSE_URL_USES = 5;
export const RESPONSE_URL_LIFETIME_MS = 30 * 60_000;

/** The OAuth app the fake knows: oauth.v2.access answers a grant `code-for-<team id>`. */
export const FAKE_OAUTH_APP = {
  clientId: "1111.2222",
  clientSecret: "fake-client-secret",
  scopes: "commands,chat:write,chat:write.public,files:write,users:read,usergroups:read",
};

export function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
