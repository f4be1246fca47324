import type { IncomingMessage, ServerResponse } from "node:http";
import { verifyWebhook, WebhookVerificationError } from "@imagehub/client";
import { type ImageGeneration, ImageGenerationSchema } from "@imagehub/domain";
import { type ChatPlatform, type ChatTarget, chatTargetOf } from "./chat-target.js";
import { progressRank } from "./generation-view.js";
import type { TeamConnections } from "./team-connections.js";

/** The path imagehub posts a connection's events to (see TeamConnections.webhookUrl). */
const WEBHOOK_PATH = /^\/imagehub\/webhooks\/([^/?]+)$/;
const MAX_BODY_BYTES = 1_000_000;
/** Delivery is at least once: ids of the last events handled, to skip a second delivery. */
const REMEMBERED_EVENTS = 10_000;

export type Logger = Pick<Console, "warn" | "error">;

export interface WebhookReceiverOptions {
  platform: ChatPlatform;
  connections: TeamConnections;
  /** Shows the generation's state in the status message the target points at. */
  onGeneration: (target: ChatTarget, generation: ImageGeneration) => Promise<void>;
  logger?: Logger;
}

/**
 * Receives imagehub's webhook deliveries for the bot: checks each one's signature with its connection's
 * secret, and routes the generation to the chat message recorded in its metaData. Events of one
 * generation are handled one at a time, and one that is behind what the message already shows (retries
 * and concurrent deliveries arrive out of order) is skipped.
 */
export class WebhookReceiver {
  private readonly handledEvents = new Set<string>();
  /** How far each generation's message has got (progressRank), and the work queued for it. */
  private readonly shown = new Map<string, { rank: number; queue: Promise<void> }>();
  private readonly logger: Logger;

  constructor(private readonly options: WebhookReceiverOptions) {
    this.logger = options.logger ?? console;
  }

  /** Node request listener; answers 404 to any other path. */
  readonly listener = (request: IncomingMessage, response: ServerResponse): void => {
    this.receive(request)
      .then((status) => response.writeHead(status).end())
      .catch((error: unknown) => {
        this.logger.error("webhook event not shown:", error);
        // imagehub delivers it again later.
        response.writeHead(500).end();
      });
  };

  /**
   * A retried generation starts again from Pending: its message follows it from scratch. Call it before
   * asking imagehub for the retry, so that the new attempt's first events are not taken for stale ones.
   */
  restart(generationId: string): void {
    this.shown.delete(generationId);
  }

  /**
   * Shows a generation the bot learnt of outside a webhook (e.g. the answer to a retry) in its message, in
   * order with the events: skipped when the message already shows it further along.
   */
  show(target: ChatTarget, generation: ImageGeneration): Promise<void> {
    return this.inOrder(target, generation);
  }

  private async receive(request: IncomingMessage): Promise<number> {
    const connectionId = WEBHOOK_PATH.exec(request.url ?? "")?.[1];
    if (request.method !== "POST" || connectionId === undefined) return 404;
    const secret = this.options.connections.webhookSecretFor(decodeURIComponent(connectionId));
    // 410 tells imagehub to stop: this connection was removed.
    if (secret === undefined) return 410;
    const body = await readBody(request);
    if (body === undefined) return 413;
    let envelope: ReturnType<typeof verifyWebhook>;
    try {
      envelope = verifyWebhook(body, request.headers, secret);
    } catch (error) {
      if (error instanceof WebhookVerificationError) return 401;
      throw error;
    }
    if (this.handledEvents.has(envelope.id)) return 204;
    const generation = ImageGenerationSchema.safeParse(envelope.data);
    const target = generation.success ? chatTargetOf(generation.data) : undefined;
    if (generation.success && target?.platform === this.options.platform) {
      await this.inOrder(target, generation.data);
    }
    this.remember(envelope.id);
    return 204;
  }

  private inOrder(target: ChatTarget, generation: ImageGeneration): Promise<void> {
    const entry = this.shown.get(generation.id) ?? { rank: -1, queue: Promise.resolve() };
    const next = entry.queue.then(async () => {
      const rank = progressRank(generation);
      if (rank <= entry.rank) return;
      await this.options.onGeneration(target, generation);
      entry.rank = rank;
    });
    entry.queue = next.catch(() => {});
    this.shown.delete(generation.id);
    this.shown.set(generation.id, entry);
    trimOldest(this.shown, REMEMBERED_EVENTS);
    return next;
  }

  private remember(eventId: string): void {
    this.handledEvents.add(eventId);
    trimOldest(this.handledEvents, REMEMBERED_EVENTS);
  }
}

/** Drops the entries added first (Sets and Maps keep insertion order) beyond `max`. */
function trimOldest(entries: Set<string> | Map<string, unknown>, max: number): void {
  for (const key of entries.keys()) {
    if (entries.size <= max) return;
    entries.delete(key);
  }
}

/** The raw body (signatures are over the exact bytes), or undefined past the size limit. */
async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
