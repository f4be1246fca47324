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
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { MetricsService } from "../metrics/metrics.service.js";
import { JobRepository } from "./job.repository.js";
import type { JobDefinition } from "./job-definition.js";
import { JOBS } from "./jobs.js";
import { JOB_HANDLER } from "./on-job.decorator.js";

type Handler = (payload: unknown, job: Job) => Promise<unknown>;

/**
 * The worker side of jobs. At start-up: finds the `@OnJob` handler of every job, refusing to start when a
 * job has none or two, and registers the schedules of periodic jobs (again every JOB_SCHEDULE_REFRESH_MS,
 * a minute by default). Then runs jobs for the queue processors: payload parsed with the job's schema
 * first, then the handler.
 */
@Injectable()
export class JobHandlers implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(JobHandlers.name);
  private reregistering: NodeJS.Timeout | undefined;
  private readonly handlers = new Map<string, { definition: JobDefinition; handler: Handler }>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly jobs: JobRepository,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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
    for (const definition of JOBS) {
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
  }

  onApplicationShutdown(): void {
    clearInterval(this.reregistering);
  }

  private registerSchedules(): Promise<unknown> {
    return Promise.all(JOBS.map((definition) => this.jobs.schedule(definition)));
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
