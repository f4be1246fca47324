import { setTimeout as sleep } from "node:timers/promises";
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from "@nestjs/common";
import type { z } from "zod";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { JobRepository } from "../jobs/job.repository.js";
import { OnJob } from "../jobs/on-job.decorator.js";
import { deliverWebhookJob, groupDeliveries, sweepWebhookDeliveriesJob } from "./webhook.jobs.js";
import { WebhooksRepository } from "./webhooks.repository.js";

/** Events relayed per statement; a full batch is followed by the next one at once. */
const RELAY_BATCH = 500;
/** While the database or Redis is away, the relay's wait doubles up to this, sparing them a retry storm. */
const LONGEST_WAIT_AFTER_FAILURE_MS = 2_000;

/**
 * Moves outbox events into the delivery queue: each event becomes one delivery per webhook that chose it
 * (written to PostgreSQL with the event marked relayed), then each webhook's deliveries are queued in
 * groups, a BullMQ job per group (see DELIVERY_GROUP_SIZE). Its sweep, a periodic job, queues again the
 * deliveries whose job is overdue. PostgreSQL is the record; the queue only schedules.
 */
@Injectable()
export class WebhookRelayService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookRelayService.name);
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly jobs: JobRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.running = this.loop();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  /** Relays one batch; answers how many events it took. */
  async relayOnce(): Promise<number> {
    const { events, deliveries } = await this.webhooks.relay(RELAY_BATCH);
    await this.jobs.enqueueMany(
      deliverWebhookJob,
      groupDeliveries(deliveries.map((delivery) => ({ ...delivery, attempt: 1 }))),
    );
    return events;
  }

  @OnJob(sweepWebhookDeliveriesJob)
  async sweep({ afterOutage }: z.output<typeof sweepWebhookDeliveriesJob.payload>): Promise<void> {
    const overdueSeconds = afterOutage ? 0 : this.config.webhooks.sweepSeconds;
    const overdue = await this.webhooks.overdue(overdueSeconds, RELAY_BATCH);
    await this.jobs.enqueueMany(deliverWebhookJob, groupDeliveries(overdue));
    if (overdue.length > 0) this.logger.warn(`${overdue.length} overdue webhook deliveries queued again`);
  }

  private async loop(): Promise<void> {
    const { relayIntervalMs } = this.config.webhooks;
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      let relayed = 0;
      try {
        relayed = await this.relayOnce();
        failures = 0;
      } catch (error) {
        // The database or Redis is away: the events wait in the outbox, the deliveries for the sweep.
        if (failures === 0) this.logger.warn(`webhook relay: ${(error as Error).message}`);
        failures += 1;
      }
      if (relayed < RELAY_BATCH) {
        const waitMs = Math.min(relayIntervalMs * 2 ** failures, LONGEST_WAIT_AFTER_FAILURE_MS);
        await sleep(Math.max(relayIntervalMs, waitMs), undefined, { signal: this.stopping.signal }).catch(
          () => {},
        );
      }
    }
  }
}
