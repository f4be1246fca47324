import { getQueueToken } from "@nestjs/bullmq";
import { Inject, Injectable, Logger, type OnModuleInit } from "@nestjs/common";
import { ModuleRef } from "@nestjs/core";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { z } from "zod";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { REDIS } from "../common/core.module.js";
import { MetricsService } from "../metrics/metrics.service.js";
import { type JobDefinition, QUEUES, type QueueName } from "./job-definition.js";
import { redisErrorLog } from "./redis-error-log.js";

const QUEUED_STATES = new Set(["waiting", "delayed", "prioritized", "active", "waiting-children"]);

function everyMs(every: number | ((config: AppConfig) => number), config: AppConfig): number {
  return typeof every === "number" ? every : every(config);
}

/** The only code that talks to the BullMQ queues. */
@Injectable()
export class JobRepository implements OnModuleInit {
  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    const logger = new Logger("Jobs");
    for (const name of Object.keys(QUEUES) as QueueName[]) {
      this.queueNamed(name).on("error", redisErrorLog(logger, `${name} queue`));
    }
    this.metrics.trackQueueDepth(() => this.countsByQueue());
  }

  /** Every queue's jobs by state, from Redis. */
  async countsByQueue(): Promise<Record<QueueName, Record<string, number>>> {
    const names = Object.keys(QUEUES) as QueueName[];
    const counts = await Promise.all(names.map((name) => this.queueNamed(name).getJobCounts()));
    return Object.fromEntries(names.map((name, index) => [name, counts[index] ?? {}])) as Record<
      QueueName,
      Record<string, number>
    >;
  }

  /** Every queue, for the queue dashboard. */
  allQueues(): Queue[] {
    return (Object.keys(QUEUES) as QueueName[]).map((name) => this.queueNamed(name));
  }

  /** `delayMs`: the job waits this long before a worker may take it. */
  async enqueue<Payload extends z.ZodType>(
    definition: JobDefinition<Payload>,
    payload: z.input<Payload>,
    { delayMs }: { delayMs?: number } = {},
  ): Promise<string> {
    const data = definition.payload.parse(payload);
    const job = await this.queue(definition).add(definition.name, data, {
      ...this.optionsFor(definition, data),
      ...(delayMs && { delay: delayMs }),
    });
    return job.id as string;
  }

  /** Many jobs of one kind in one round trip to Redis. */
  async enqueueMany<Payload extends z.ZodType>(
    definition: JobDefinition<Payload>,
    payloads: z.input<Payload>[],
  ): Promise<void> {
    if (payloads.length === 0) return;
    // One job (a create's): added by a command of its own, without the pipeline that a bulk add builds and
    // checks its scripts for.
    if (payloads.length === 1) {
      await this.enqueue(definition, payloads[0] as z.input<Payload>);
      return;
    }
    await this.queue(definition).addBulk(
      payloads.map((payload) => {
        const data = definition.payload.parse(payload);
        return { name: definition.name, data, opts: this.optionsFor(definition, data) };
      }),
    );
  }

  /**
   * For requests whose change is committed already: queues the jobs unless Redis is away or slower than
   * JOB_ENQUEUE_TIMEOUT_MS, so that the request answers within that bound; a sweep queues later, from
   * PostgreSQL, what is not queued now. Answers whether they were queued. (While Redis is away, a command
   * would wait for it in the connection's queue for as long as it takes.)
   */
  async enqueueIfReachable<Payload extends z.ZodType>(
    definition: JobDefinition<Payload>,
    payloads: z.input<Payload>[],
  ): Promise<boolean> {
    if (this.redis.status !== "ready") return false;
    // A timer cleared, not an aborted delay: aborting rejects with an AbortError, made on every create.
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.enqueueMany(definition, payloads).then(() => true),
        new Promise<false>((resolve) => {
          timer = setTimeout(resolve, this.config.jobEnqueueTimeoutMs, false);
        }),
      ]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Creates or updates the job's scheduler; idempotent, so every worker may call it at start. */
  async schedule(definition: JobDefinition): Promise<void> {
    if (!definition.schedule) return;
    await this.queue(definition).upsertJobScheduler(
      definition.name,
      { every: everyMs(definition.schedule.everyMs, this.config) },
      {
        name: definition.name,
        data: definition.payload.parse(definition.schedule.payload),
        opts: definition.options,
      },
    );
  }

  /**
   * Whether the job with this payload's id is waiting, delayed or running; false when it is gone, failed
   * or completed. Only for jobs with deterministic ids.
   */
  async isQueued<Payload extends z.ZodType>(
    definition: JobDefinition<Payload>,
    payload: z.input<Payload>,
  ): Promise<boolean> {
    const jobId = definition.jobId?.(definition.payload.parse(payload));
    if (jobId === undefined) throw new Error(`job ${definition.name} has no deterministic id`);
    return QUEUED_STATES.has(await this.queue(definition).getJobState(jobId));
  }

  private optionsFor<Payload extends z.ZodType>(definition: JobDefinition<Payload>, data: z.output<Payload>) {
    return {
      ...definition.options,
      ...(definition.jobId && { jobId: definition.jobId(data) }),
      ...(definition.priority && { priority: definition.priority(data) }),
    };
  }

  queue(definition: JobDefinition): Queue {
    return this.queueNamed(definition.queue);
  }

  private queueNamed(name: QueueName): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
  }
}
