import type { Listener } from "@imagehub/db";
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
 * A pass notified of new events begins no sooner than this after the one before: every pass is a statement
 * and a commit however few events it takes, and events committed one by one (a generation's six, each in its
 * transaction) would each take a pass of their own. Adds at most this much to an event's lag: at 100 ms, busy
 * workers' generations share a pass two by two rather than take one each, well inside the lag's target
 * (p99 ≤ 250 ms at 200 events/s).
 */
export const RELAY_PASS_SPACING_MS = 100;

/**
 * The worker process's long-running relay: from start-up to shutdown it relays batch after batch, and once a
 * batch comes back short waits for new events to commit (the outbox's notifications, unless
 * WEBHOOK_RELAY_LISTEN=false) or for WEBHOOK_RELAY_INTERVAL_MS, whichever comes first (longer while the
 * database or Redis fails). The interval bounds the lag when no notification comes (its connection lost, a
 * relay that missed it). A loop of its own rather than a repeatable job, so that an empty outbox costs one
 * statement per interval and no queue traffic.
 */
@Injectable()
export class WebhookRelayWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookRelayWorker.name);
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private listener: Listener | undefined;
  private hasTriedListening = false;
  /** Set by a notification: events committed since the last batch began, so no wait before the next. */
  private hasNews = false;
  /** Ends the wait under way, if any. */
  private wake: (() => void) | undefined;

  constructor(
    private readonly relay: WebhookRelayService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.running = this.run();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    this.wake?.();
    await this.running;
    await this.listener?.close().catch(() => undefined);
  }

  private async run(): Promise<void> {
    const { relayIntervalMs, relayListens } = this.config.webhooks;
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      let relayed = 0;
      this.hasNews = false;
      const passStartedAt = Date.now();
      try {
        relayed = await this.relay.relayOnce();
        failures = 0;
      } catch (error) {
        // The database or Redis is away: the events wait in the outbox, the deliveries for the sweep.
        if (failures === 0) this.logger.warn(`webhook relay: ${(error as Error).message}`);
        failures += 1;
      }
      if (failures === 0 && relayListens) await this.listen();
      if (relayed < RELAY_BATCH) {
        const waitMs = Math.min(relayIntervalMs * 2 ** failures, LONGEST_WAIT_AFTER_FAILURE_MS);
        await this.waitForNews(Math.max(relayIntervalMs, waitMs));
        // Notified early: the events committed meanwhile join the next pass.
        await this.waitFor(passStartedAt + RELAY_PASS_SPACING_MS - Date.now());
      }
    }
  }

  /** Listens for the outbox's notifications unless it does already; without them, the interval serves. */
  private async listen(): Promise<void> {
    if (this.listener?.isOpen || this.stopping.signal.aborted) return;
    const hadListener = this.listener !== undefined;
    this.listener = undefined;
    try {
      this.listener = await this.relay.listenForEvents(() => {
        this.hasNews = true;
        this.wake?.();
      });
    } catch (error) {
      // Told once per loss, not at every interval while it lasts.
      if (hadListener || !this.hasTriedListening) {
        this.logger.warn(
          `webhook relay: polling only, not notified of new events: ${(error as Error).message}`,
        );
      }
    }
    this.hasTriedListening = true;
  }

  /** Waits `ms` (nothing when it is not positive), or less if the worker stops. */
  private waitFor(ms: number): Promise<void> {
    if (ms <= 0 || this.stopping.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const stop = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.stopping.signal.removeEventListener("abort", stop);
        resolve();
      }, ms);
      this.stopping.signal.addEventListener("abort", stop, { once: true });
    });
  }

  /** Waits `ms`, or less if news comes or the worker stops. */
  private waitForNews(ms: number): Promise<void> {
    if (this.hasNews || this.stopping.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(), ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }
}
