import { WEBHOOK_API_VERSION, type WebhookEnvelope } from "@imagehub/domain";
import { Inject, Injectable, Logger } from "@nestjs/common";
import type { z } from "zod";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { JobRepository } from "../jobs/job.repository.js";
import { OnJob } from "../jobs/on-job.decorator.js";
import { MetricsService } from "../metrics/metrics.service.js";
import { deliverWebhookJob } from "./webhook.jobs.js";
import { type SendOutcome, WebhookSender } from "./webhook-sender.js";
import { type DeliveryToMake, WebhooksRepository } from "./webhooks.repository.js";

/** A Retry-After longer than this is read as this: a delivery is given about a day in all. */
const MAX_RETRY_AFTER_SECONDS = 24 * 3600;
/** Each scheduled wait is moved by up to this fraction, so that retries of many events spread out. */
const JITTER = 0.1;

/** Makes one attempt of a delivery, records it, and queues the next one on the retry schedule. */
@Injectable()
export class WebhookDeliveryService {
  private readonly logger = new Logger(WebhookDeliveryService.name);

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly sender: WebhookSender,
    private readonly jobs: JobRepository,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @OnJob(deliverWebhookJob)
  async deliver(job: z.output<typeof deliverWebhookJob.payload>): Promise<void> {
    const delivery = await this.webhooks.findDelivery(job);
    // Delivered or given up already, or this attempt was made (a job queued twice): nothing to do.
    if (delivery?.status !== "pending" || delivery.attempts !== job.attempt - 1) return;
    // Held while the webhook is disabled: an enable with replay queues it again.
    if (delivery.disabled) return;
    const outcome = await this.sender.send(delivery, {
      id: job.eventId,
      body: envelopeOf(job.eventId, delivery),
    });
    const retryInSeconds = outcome.delivered ? undefined : this.retryDelay(job.attempt, outcome);
    const { isDisabled } = await this.webhooks.recordAttempt({
      ...job,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      error: outcome.error,
      delivered: outcome.delivered,
      retryInSeconds,
    });
    if (outcome.delivered) {
      this.metrics.webhookAttempted("delivered", (Date.now() - delivery.createdAt.getTime()) / 1000);
      return;
    }
    this.metrics.webhookAttempted("failed");
    this.logger.debug(
      `webhook ${job.webhookId}, event ${job.eventId}, attempt ${job.attempt}: ${outcome.error}`,
    );
    if (retryInSeconds !== undefined && !isDisabled) {
      await this.jobs.enqueue(
        deliverWebhookJob,
        { ...job, attempt: job.attempt + 1 },
        { delayMs: Math.round(retryInSeconds * 1000) },
      );
    }
  }

  /** The wait before the next attempt: Retry-After when the endpoint gave one, else the schedule's. */
  private retryDelay(attempt: number, outcome: SendOutcome): number | undefined {
    const scheduled = this.config.webhooks.retrySeconds[attempt - 1];
    if (scheduled === undefined) return undefined;
    if (outcome.retryAfterSeconds !== undefined)
      return Math.min(outcome.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS);
    return scheduled * (1 + JITTER * (2 * Math.random() - 1));
  }
}

/** The body every endpoint receives: the event as the outbox holds it. */
function envelopeOf(eventId: string, delivery: DeliveryToMake): string {
  const envelope = {
    id: eventId,
    api_version: WEBHOOK_API_VERSION,
    created: Math.floor(delivery.createdAt.getTime() / 1000),
    type: delivery.type,
    data: delivery.payload,
  } as WebhookEnvelope;
  return JSON.stringify(envelope);
}
