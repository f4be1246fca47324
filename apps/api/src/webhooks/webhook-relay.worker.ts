import { setTimeout as sleep } from "node:timers/promises";
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { RELAY_BATCH, WebhookRelayService } from "./webhook-relay.service.js";

/** While the database or Redis is away, the relay's wait doubles up to this, sparing them a retry storm. */
const LONGEST_WAIT_AFTER_FAILURE_MS = 2_000;

/**
 * The worker process's long-running relay: from start-up to shutdown it relays batch after batch, and
 * waits WEBHOOK_RELAY_INTERVAL_MS once a batch comes back short (longer while the database or Redis fails).
 * A loop of its own rather than a repeatable job, so that an empty outbox costs one statement per interval
 * and no queue traffic.
 */
@Injectable()
export class WebhookRelayWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookRelayWorker.name);
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;

  constructor(
    private readonly relay: WebhookRelayService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.running = this.run();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private async run(): Promise<void> {
    const { relayIntervalMs } = this.config.webhooks;
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      let relayed = 0;
      try {
        relayed = await this.relay.relayOnce();
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
