import { setTimeout as sleep } from "node:timers/promises";
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from "@nestjs/common";
import { DiscoveryService, MetadataScanner, Reflector } from "@nestjs/core";
import { DelayedError, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { REDIS } from "../common/core.module.js";
import { DependencyChecksRepository } from "../common/dependency-checks.repository.js";
import { MetricsService } from "../metrics/metrics.service.js";
import { JobRepository } from "./job.repository.js";
import { JOB_DEFINITIONS, type JobDefinition } from "./job-definition.js";
import { JOB_HANDLER } from "./on-job.decorator.js";

type Handler = (payload: unknown, job: Job) => Promise<unknown>;

/** How often PostgreSQL is checked, so that the end of its outage is met within about this long. */
const DATABASE_CHECK_INTERVAL_MS = 1_000;

/**
 * The worker side of jobs. At start-up: finds the `@OnJob` handler of every job, refusing to start when a
 * job has none or two, and registers the schedules of periodic jobs (again every JOB_SCHEDULE_REFRESH_MS,
 * a minute by default). Then runs jobs for the queue processors: payload parsed with the job's schema
 * first, then the handler. When Redis or PostgreSQL answers again after failing, it registers the schedules
 * at once and queues the periodic jobs that recover from an outage (the sweeps): Redis may have restarted
 * empty, and the jobs that ran out of attempts while the database was away wait for them.
 */
@Injectable()
export class JobHandlers implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(JobHandlers.name);
  private reregistering: NodeJS.Timeout | undefined;
  private readonly stopping = new AbortController();
  private watchingDatabase: Promise<void> | undefined;
  private hasLostRedis = false;
  private readonly handlers = new Map<string, { definition: JobDefinition; handler: Handler }>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly jobs: JobRepository,
    private readonly metrics: MetricsService,
    private readonly dependencies: DependencyChecksRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(JOB_DEFINITIONS) private readonly definitions: JobDefinition[],
  ) {}

  onModuleInit(): void {
    const found = new Map<string, { definition: JobDefinition; handler: Handler; where: string }[]>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== "object") continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const handler = instance[method] as Handler;
        const definition = this.reflector.get<JobDefinition | undefined>(JOB_HANDLER, handler);
        if (!definition) continue;
        const entries = found.get(definition.name) ?? [];
        entries.push({ definition, handler: handler.bind(instance), where: `${wrapper.name}.${method}` });
        found.set(definition.name, entries);
      }
    }
    for (const definition of this.definitions) {
      const entries = found.get(definition.name) ?? [];
      if (entries.length !== 1) {
        const where = entries.map((entry) => entry.where).join(", ") || "none";
        throw new Error(`job ${definition.name} needs exactly one @OnJob handler (found: ${where})`);
      }
      this.handlers.set(definition.name, entries[0] as { definition: JobDefinition; handler: Handler });
      found.delete(definition.name);
    }
    if (found.size > 0)
      throw new Error(`@OnJob handlers for jobs not listed in JOBS: ${[...found.keys()].join(", ")}`);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.registerSchedules();
    // Schedules live in Redis: one that restarted empty would run no periodic job (the sweeps that recover
    // lost jobs among them) until they are registered again, which is idempotent.
    this.reregistering = setInterval(() => {
      this.registerSchedules().catch((error: Error) =>
        this.logger.warn(`job schedules not registered: ${error.message}`),
      );
    }, this.config.jobScheduleRefreshMs);
    this.reregistering.unref();
    this.redis.on("close", this.redisLost);
    this.redis.on("ready", this.redisAnswered);
    this.watchingDatabase = this.watchDatabase();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.reregistering);
    this.redis.off("close", this.redisLost);
    this.redis.off("ready", this.redisAnswered);
    this.stopping.abort();
    await this.watchingDatabase;
  }

  private registerSchedules(): Promise<unknown> {
    return Promise.all(this.definitions.map((definition) => this.jobs.schedule(definition)));
  }

  private readonly redisLost = () => {
    this.hasLostRedis = true;
  };

  private readonly redisAnswered = () => {
    if (!this.hasLostRedis) return;
    this.hasLostRedis = false;
    void this.recover("Redis");
  };

  private async watchDatabase(): Promise<void> {
    let isDown = false;
    while (!this.stopping.signal.aborted) {
      await sleep(DATABASE_CHECK_INTERVAL_MS, undefined, { signal: this.stopping.signal }).catch(() => {});
      if (this.stopping.signal.aborted) return;
      const isUp = await this.dependencies.isDatabaseUp();
      if (isUp && isDown) void this.recover("PostgreSQL");
      isDown = !isUp;
    }
  }

  private async recover(dependency: string): Promise<void> {
    try {
      await this.registerSchedules();
      for (const definition of this.definitions) {
        if (definition.schedule?.afterOutage)
          await this.jobs.enqueue(definition, definition.schedule.afterOutage);
      }
      this.logger.log(`${dependency} answers again: schedules registered, sweeps queued`);
    } catch (error) {
      // Failing again: the next recovery, or the schedules' refresh, will do it.
      this.logger.warn(
        `after ${dependency}'s return, schedules and sweeps not queued: ${(error as Error).message}`,
      );
    }
  }

  async run(job: Job): Promise<unknown> {
    const entry = this.handlers.get(job.name);
    if (!entry) throw new Error(`no handler for job ${job.name}`);
    const payload = entry.definition.payload.parse(job.data);
    this.logger.debug(`running ${job.name} (${job.id})`);
    const started = performance.now();
    const took = () => (performance.now() - started) / 1000;
    try {
      const result = await entry.handler(payload, job);
      this.metrics.jobFinished(job.queueName, job.name, "completed", took());
      return result;
    } catch (error) {
      // Put off by its handler (moved to delayed), neither done nor failed.
      if (error instanceof DelayedError) throw error;
      this.metrics.jobFinished(job.queueName, job.name, "failed", took());
      const attempts = job.opts.attempts ?? 1;
      const outcome = job.attemptsMade + 1 < attempts ? "will be tried again" : "gave up";
      this.logger.warn(`${job.name} (${job.id}) failed, ${outcome}: ${(error as Error).stack ?? error}`);
      throw error;
    }
  }
}
