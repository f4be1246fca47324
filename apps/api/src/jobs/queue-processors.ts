import { Processor, WorkerHost } from "@nestjs/bullmq";
import type { Type } from "@nestjs/common";
import type { Job } from "bullmq";
import { QUEUES, type QueueName } from "./job-definition.js";
import { JobHandlers } from "./job-handlers.js";

/** One BullMQ worker per queue, each handing its jobs to the handlers. */
function processorFor(queue: QueueName): Type<WorkerHost> {
  @Processor(queue, { concurrency: QUEUES[queue].concurrency })
  class QueueProcessor extends WorkerHost {
    constructor(private readonly handlers: JobHandlers) {
      super();
    }

    process(job: Job): Promise<unknown> {
      return this.handlers.run(job);
    }
  }
  Object.defineProperty(QueueProcessor, "name", { value: `${queue}QueueProcessor` });
  return QueueProcessor;
}

export const QUEUE_PROCESSORS = (Object.keys(QUEUES) as QueueName[]).map(processorFor);
