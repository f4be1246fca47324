import { WEBHOOK_API_VERSION } from "@imagehub/domain";
import { Inject, Injectable, Logger } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { JobRepository } from "../jobs/job.repository.js";
import { OnJob } from "../jobs/on-job.decorator.js";
import { MetricsService } from "../metrics/metrics.service.js";
import { type DeliveryGroup, deliverWebhookJob } from "./webhook.jobs.js";
import type { AttemptRecord } from "./webhook.statements.js";
import { reasonToDisable } from "./webhook-disabling.js";
import { type SendOutcome, WebhookSender } from "./webhook-sender.js";
import { type DeliveryToMake, WebhooksRepository } from "./webhooks.repository.js";

/** A Retry-After longer than this is read as this: a delivery is given about a day in all. */
const MAX_RETRY_AFTER_SECONDS = 24 * 3600;
/** Each scheduled wait is moved by up to this fraction, so that retries of many events spread out. */
const JITTER = 0.1;

/**
 * Makes one attempt of each delivery of a group, at once over the webhook's kept-alive connections, records
 * them (the successes in one statement), and queues the next attempt of each failed one on the schedule.
 */
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
  async deliver(group: DeliveryGroup): Promise<void> {
    const { webhookId, attempt } = group;
    const deliveries = await this.webhooks.findDeliveries(webhookId, group.eventIds);
    const delivered: AttemptRecord[] = [];
    const lagsSeconds: number[] = [];
    await Promise.all(
      group.eventIds.map(async (eventId) => {
        const delivery = deliveries.get(eventId);
        // Delivered or given up already, or this attempt was made (a job queued twice): nothing to do.
        if (delivery?.status !== "pending" || delivery.attempts !== attempt - 1) return;
        // Held while the webhook is disabled: an enable with replay queues it again.
        if (delivery.disabled) return;
        const outcome = await this.sender.send(delivery, {
          id: eventId,
          body: envelopeOf(eventId, delivery),
        });
        const record = {
          eventId,
          webhookId,
          attempt,
          statusCode: outcome.statusCode,
          durationMs: outcome.durationMs,
        };
        if (outcome.delivered) {
          delivered.push(record);
          lagsSeconds.push((Date.now() - delivery.createdAt.getTime()) / 1000);
        } else {
          await this.failed(record, outcome);
        }
      }),
    );
    this.metrics.webhooksDelivered(lagsSeconds);
    await this.webhooks.recordSuccesses(delivered);
  }

  /**
   * Records a failed attempt, disabling the webhook when the endpoint is gone or has failed too long, and
   * queues the next attempt unless the webhook is (now) disabled.
   */
  private async failed(record: AttemptRecord, outcome: SendOutcome): Promise<void> {
    this.metrics.webhookFailed();
    this.logger.debug(
      `webhook ${record.webhookId}, event ${record.eventId}, attempt ${record.attempt}: ${outcome.error}`,
    );
    const retryInSeconds = this.retryDelay(record.attempt, outcome);
    const { isDisabled } = await this.webhooks.recordFailure({
      ...record,
      error: outcome.error,
      retryInSeconds,
      reasonToDisable: (failingSince) =>
        reasonToDisable(outcome.statusCode, failingSince, this.config.webhooks.disableAfterSeconds),
    });
    if (retryInSeconds !== undefined && !isDisabled) {
      await this.jobs.enqueue(
        deliverWebhookJob,
        { webhookId: record.webhookId, attempt: record.attempt + 1, eventIds: [record.eventId] },
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

/**
 * The body every endpoint receives, the WebhookEnvelope of the event as the outbox holds it: the payload's
 * JSON text goes in as PostgreSQL wrote it, so that a delivery neither parses nor re-serialises it.
 */
function envelopeOf(eventId: string, delivery: DeliveryToMake): string {
  const created = Math.floor(delivery.createdAt.getTime() / 1000);
  return `{"id":${JSON.stringify(eventId)},"api_version":${WEBHOOK_API_VERSION},"created":${created},"type":${JSON.stringify(delivery.type)},"data":${delivery.payloadJson}}`;
}
