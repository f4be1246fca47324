import type { IncomingMessage, ServerResponse } from "node:http";
import { verifyWebhook, WebhookVerificationError } from "@imagehub/client";
import { type ImageGeneration, ImageGenerationSchema } from "@imagehub/domain";
import type { Logger } from "./bot-logger.js";
import {
  type ChatPlatform,
  type ChatTarget,
  chatTargetOf,
  claimsChatTarget,
  isCreatedWithItsMessage,
} from "./chat-target.js";
import type { SecretBox } from "./secret-box.js";
import type { StatusUpdates } from "./status-updates.js";
import type { TeamConnections } from "./team-connections.js";

/** The path imagehub posts a connection's events to (see TeamConnections.webhookUrl). */
const WEBHOOK_PATH = /^\/imagehub\/webhooks\/([^/?]+)$/;
const MAX_BODY_BYTES = 1_000_000;
/** Delivery is at least once: the last deliveries handled (webhook and event), to skip a second one. */
const REMEMBERED_EVENTS = 10_000;

export interface WebhookReceiverOptions {
  platform: ChatPlatform;
  connections: TeamConnections;
  /** Checks that a generation's chat target is one this bot wrote. */
  secretBox: SecretBox;
  /** Where each state is recorded, before the delivery is answered, and applied to its message. */
  updates: StatusUpdates;
  logger: Logger;
}

/** A refusal of the receiver, answered in the API's error body. */
class ReceiverRefusal extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

const STATUS_NAMES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  410: "Gone",
  413: "Payload Too Large",
};

/**
 * Receives imagehub's webhook deliveries for the bot: checks each one's signature with its connection's
 * secret, and hands the generation to the status updates queue for the chat message recorded in its
 * metaData, only when this bot wrote that record (its signature) and the message is in a team the
 * connection serves. A delivery is answered once its state is recorded; the queue shows it later.
 */
export class WebhookReceiver {
  private readonly handledEvents = new Set<string>();

  constructor(private readonly options: WebhookReceiverOptions) {}

  /** Node request listener; answers 404 to any other path. */
  readonly listener = (request: IncomingMessage, response: ServerResponse): void => {
    this.receive(request)
      .then((status) => response.writeHead(status).end())
      .catch((error: unknown) => {
        if (error instanceof ReceiverRefusal) {
          const body = {
            statusCode: error.statusCode,
            error: STATUS_NAMES[error.statusCode],
            message: [error.message],
          };
          response.writeHead(error.statusCode, { "content-type": "application/json" });
          response.end(JSON.stringify(body));
          return;
        }
        this.options.logger.error({ err: error }, "webhook event not shown");
        // imagehub delivers it again later.
        response.writeHead(500).end();
      });
  };

  /**
   * Shows a generation the bot learnt of outside a webhook (e.g. the answer to a retry) of a team in its
   * message, in order with the events: skipped when the message already shows it further along.
   */
  async show(teamId: string, generation: ImageGeneration): Promise<void> {
    const target = await this.trustedTarget(generation, async (targetTeam) => targetTeam === teamId);
    if (target) await this.options.updates.offer(target, generation);
  }

  private async receive(request: IncomingMessage): Promise<number> {
    const connectionId = connectionOf(request);
    const webhook = await this.options.connections.webhookOf(connectionId);
    if (webhook === undefined) throw new ReceiverRefusal(410, "this connection was removed");
    const body = await readBody(request);
    if (body === undefined) throw new ReceiverRefusal(413, `a delivery is at most ${MAX_BODY_BYTES} bytes`);
    let envelope: ReturnType<typeof verifyWebhook>;
    try {
      envelope = verifyWebhook(body, request.headers, webhook.secret);
    } catch (error) {
      if (error instanceof WebhookVerificationError) throw new ReceiverRefusal(401, "bad signature");
      throw error;
    }
    // Each webhook of an account gets the same event (same id): a delivery is known by both.
    const deliveryKey = `${webhook.webhookId}/${envelope.id}`;
    if (this.handledEvents.has(deliveryKey)) return 204;
    const generation = ImageGenerationSchema.safeParse(envelope.data);
    if (generation.success) {
      const target = await this.trustedTarget(generation.data, (teamId) =>
        this.options.connections.servesTeam(connectionId, teamId),
      );
      if (target) await this.options.updates.offer(target, generation.data);
    }
    // Remembered only now that its state is recorded: a delivery that failed before is handled again.
    this.remember(deliveryKey);
    // Refused targets are answered 204 too: imagehub's retries would change nothing.
    return 204;
  }

  /**
   * The generation's chat message, when this bot wrote its target, for this platform, in a team that
   * `isTeamServed`; undefined otherwise, and a target that claims a message it may not touch is logged.
   */
  async trustedTarget(
    generation: ImageGeneration,
    isTeamServed: (teamId: string) => Promise<boolean>,
  ): Promise<ChatTarget | undefined> {
    if (!claimsChatTarget(generation)) return undefined;
    const target = chatTargetOf(generation, this.options.secretBox);
    if (target && target.platform !== this.options.platform) return undefined;
    if (target && isCreatedWithItsMessage(target, generation) && (await isTeamServed(target.teamId)))
      return target;
    this.options.logger.warn(
      {
        generationId: generation.id,
        claimed: generation.metaData.chat,
        isSignedByThisBot: target !== undefined,
      },
      "refused a generation whose chat target this bot did not write for this team",
    );
    return undefined;
  }

  private remember(deliveryKey: string): void {
    this.handledEvents.add(deliveryKey);
    trimOldest(this.handledEvents, REMEMBERED_EVENTS);
  }
}

/** The connection id of a delivery's path; a refusal for anything else. */
function connectionOf(request: IncomingMessage): string {
  const encoded = WEBHOOK_PATH.exec(request.url ?? "")?.[1];
  if (request.method !== "POST" || encoded === undefined) throw new ReceiverRefusal(404, "no such route");
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new ReceiverRefusal(400, "the connection id in the path is not valid percent-encoding");
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
