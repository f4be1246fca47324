import type { JobsOptions } from "bullmq";
import type { z } from "zod";

/** The queues and how many jobs of each one worker process runs at once. */
export const QUEUES = {
  credits: { concurrency: 1 },
} as const;
export type QueueName = keyof typeof QUEUES;

/** A job, declared as data: its name, queue, payload schema, options and, for periodic jobs, a schedule. */
export interface JobDefinition<Payload extends z.ZodType = z.ZodType> {
  name: string;
  queue: QueueName;
  payload: Payload;
  options?: JobsOptions;
  /** Same payload, same id: BullMQ then keeps one job, so enqueueing twice is harmless. */
  jobId?: (payload: z.output<Payload>) => string;
  /** Run every `everyMs` milliseconds by a BullMQ job scheduler (one schedule, however many workers). */
  schedule?: { everyMs: number; payload: z.input<Payload> };
}

export function defineJob<Payload extends z.ZodType>(
  definition: JobDefinition<Payload>,
): JobDefinition<Payload> {
  return definition;
}
