import { Injectable, Logger } from "@nestjs/common";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** From 5 ms to 10 s: requests, searches, job steps. */
const SHORT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** From 100 ms to 10 min: a whole generation, a webhook delivery's wait behind retries. */
const LONG_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** A queue count that Redis has not answered by then is left out of the scrape rather than holding it up. */
const QUEUE_COUNT_TIMEOUT_MS = 1000;

export type QueueCounts = Record<string, Record<string, number>>;

/**
 * This process's Prometheus metrics (prom-client): every process has its own, served by its own /metrics.
 * The queues' depths are read from Redis at each scrape, so any process tells the whole deployment's.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly logger = new Logger("Metrics");

  private readonly requestDuration = new Histogram({
    name: "imagehub_http_request_duration_seconds",
    help: "HTTP requests by route (its pattern), method and status",
    labelNames: ["method", "route", "status"],
    buckets: SHORT_BUCKETS,
    registers: [this.registry],
  });
  private readonly jobDuration = new Histogram({
    name: "imagehub_job_duration_seconds",
    help: "Jobs run by this worker, by queue, job and outcome (completed, failed)",
    labelNames: ["queue", "job", "outcome"],
    buckets: LONG_BUCKETS,
    registers: [this.registry],
  });
  private readonly generationDuration = new Histogram({
    name: "imagehub_generation_duration_seconds",
    help: "Generation runs from claim to their end, by engine and outcome (done, error)",
    labelNames: ["engine", "outcome"],
    buckets: LONG_BUCKETS,
    registers: [this.registry],
  });
  private readonly webhookDeliveries = new Counter({
    name: "imagehub_webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome (delivered, failed)",
    labelNames: ["outcome"],
    registers: [this.registry],
  });
  private readonly webhookLag = new Histogram({
    name: "imagehub_webhook_delivery_lag_seconds",
    help: "From an event's commit to its delivery's 2xx, retries included",
    buckets: LONG_BUCKETS,
    registers: [this.registry],
  });
  private readonly creditsSpent = new Counter({
    name: "imagehub_credits_spent_total",
    help: "Credits spent, by bucket: images bought, generations created or retried",
    labelNames: ["bucket"],
    registers: [this.registry],
  });
  private readonly searchDuration = new Histogram({
    name: "imagehub_search_duration_seconds",
    help: "Catalogue searches, by whether a recent identical search's answer was reused",
    labelNames: ["cached"],
    buckets: SHORT_BUCKETS,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: "imagehub_" });
  }

  /** `readCounts` answers each queue's job counts by state; it is called at each scrape. */
  trackQueueDepth(readCounts: () => Promise<QueueCounts>): void {
    const logger = this.logger;
    new Gauge({
      name: "imagehub_queue_jobs",
      help: "Jobs in each queue by state (waiting, prioritized, active, delayed, failed, completed), read from Redis",
      labelNames: ["queue", "state"],
      registers: [this.registry],
      async collect() {
        this.reset();
        try {
          const counts = await withTimeout(readCounts(), QUEUE_COUNT_TIMEOUT_MS);
          for (const [queue, byState] of Object.entries(counts)) {
            for (const [state, count] of Object.entries(byState)) this.set({ queue, state }, count);
          }
        } catch (error) {
          logger.warn(`queue depths left out of the metrics: ${(error as Error).message}`);
        }
      },
    });
  }

  requestServed(method: string, route: string, status: number, seconds: number): void {
    this.requestDuration.observe({ method, route, status }, seconds);
  }

  jobFinished(queue: string, job: string, outcome: "completed" | "failed", seconds: number): void {
    this.jobDuration.observe({ queue, job, outcome }, seconds);
  }

  generationFinished(engine: string, outcome: "done" | "error", seconds: number): void {
    this.generationDuration.observe({ engine, outcome }, seconds);
  }

  /** Deliveries made, counted at once (a group's): how long after its event's commit each came. */
  webhooksDelivered(lagsSeconds: readonly number[]): void {
    this.webhookDeliveries.inc({ outcome: "delivered" }, lagsSeconds.length);
    for (const lagSeconds of lagsSeconds) this.webhookLag.observe(lagSeconds);
  }

  webhookFailed(): void {
    this.webhookDeliveries.inc({ outcome: "failed" });
  }

  spent(bucket: string, credits: number): void {
    if (credits > 0) this.creditsSpent.inc({ bucket }, credits);
  }

  searched(isCached: boolean, seconds: number): void {
    this.searchDuration.observe({ cached: String(isCached) }, seconds);
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
