import type { Listener } from "@imagehub/db";
import { Inject, Injectable, Logger } from "@nestjs/common";
import type { z } from "zod";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { JobRepository } from "../jobs/job.repository.js";
import { OnJob } from "../jobs/on-job.decorator.js";
import { deliverWebhookJob, groupDeliveries, sweepWebhookDeliveriesJob } from "./webhook.jobs.js";
import { WebhooksRepository } from "./webhooks.repository.js";

/** Events relayed per statement; a full batch is followed by the next one at once. */
export const RELAY_BATCH = 500;

/**
 * Moves outbox events into the delivery queue: each event becomes one delivery per webhook that chose it
 * (written to PostgreSQL with the event marked relayed), then each webhook's deliveries are queued in
 * groups, a BullMQ job per group (see DELIVERY_GROUP_SIZE), batch after batch as WebhookRelayWorker asks.
 * Its sweep, a periodic job, queues again the deliveries whose job is overdue. PostgreSQL is the record; the
 * queue only schedules.
 */
@Injectable()
export class WebhookRelayService {
  private readonly logger = new Logger(WebhookRelayService.name);

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly jobs: JobRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Relays one batch; answers how many events it took. */
  async relayOnce(): Promise<number> {
    const { events, deliveries } = await this.webhooks.relay(RELAY_BATCH);
    await this.jobs.enqueueMany(
      deliverWebhookJob,
      groupDeliveries(deliveries.map((delivery) => ({ ...delivery, attempt: 1 }))),
    );
    return events;
  }

  /** Calls `onNewEvents` as soon as new events commit, whichever process wrote them. */
  listenForEvents(onNewEvents: () => void): Promise<Listener> {
    return this.webhooks.listenForEvents(onNewEvents);
  }

  @OnJob(sweepWebhookDeliveriesJob)
  async sweep({ afterOutage }: z.output<typeof sweepWebhookDeliveriesJob.payload>): Promise<void> {
    const overdueSeconds = afterOutage ? 0 : this.config.webhooks.sweepSeconds;
    const overdue = await this.webhooks.overdue(overdueSeconds, RELAY_BATCH);
    await this.jobs.enqueueMany(deliverWebhookJob, groupDeliveries(overdue));
    if (overdue.length > 0) this.logger.warn(`${overdue.length} overdue webhook deliveries queued again`);
  }
}
