import type { JobsOptions, WorkerOptions } from "bullmq";
import type { z } from "zod";
import type { AppConfig } from "../common/config.js";

type QueueWorkerOptions = Pick<
  WorkerOptions,
  "concurrency" | "lockDuration" | "stalledInterval" | "maxStalledCount"
>;

/** The queues, and how one worker process runs the jobs of each. */
export const QUEUES = {
  credits: () => ({ concurrency: 1 }),
  // A worker that dies loses its lock after lockDuration; the stalled check then hands the job to another.
  generations: ({ generations }) => ({
    concurrency: generations.concurrency,
    lockDuration: generations.lockSeconds * 1000,
    stalledInterval: generations.lockSeconds * 1000,
    maxStalledCount: 2,
  }),
  // A dead worker's deliveries too are taken over once its lock lapses (BullMQ's default, 30 s, would
  // hold their events that long).
  webhooks: ({ webhooks, generations }) => ({
    concurrency: webhooks.concurrency,
    lockDuration: generations.lockSeconds * 1000,
    stalledInterval: generations.lockSeconds * 1000,
  }),
} as const satisfies Record<string, (config: AppConfig) => QueueWorkerOptions>;
export type QueueName = keyof typeof QUEUES;

/** A job, declared as data: its name, queue, payload schema, options and, for periodic jobs, a schedule. */
export interface JobDefinition<Payload extends z.ZodType = z.ZodType> {
  name: string;
  queue: QueueName;
  payload: Payload;
  options?: JobsOptions;
  /** Same payload, same id: BullMQ then keeps one job, so enqueueing twice is harmless. */
  jobId?: (payload: z.output<Payload>) => string;
  /** BullMQ priority (1 is taken first); absent: before every prioritised job, in order. */
  priority?: (payload: z.output<Payload>) => number;
  /**
   * Run every `everyMs` milliseconds by a BullMQ job scheduler (one schedule, however many workers);
   * `afterOutage`: also run at once, with that payload, when Redis or PostgreSQL answers again after failing.
   */
  schedule?: {
    everyMs: number | ((config: AppConfig) => number);
    payload: z.input<Payload>;
    afterOutage?: z.input<Payload>;
  };
}

export function defineJob<Payload extends z.ZodType>(
  definition: JobDefinition<Payload>,
): JobDefinition<Payload> {
  return definition;
}

/** The application's jobs, each of which must have exactly one `@OnJob` handler (checked at start-up). */
export const JOB_DEFINITIONS = Symbol("JOB_DEFINITIONS");
