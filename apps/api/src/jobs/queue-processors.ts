import { Processor, WorkerHost } from "@nestjs/bullmq";
import type { Type } from "@nestjs/common";
import type { Job } from "bullmq";
import type { AppConfig } from "../common/config.js";
import { QUEUES, type QueueName } from "./job-definition.js";
import { JobHandlers } from "./job-handlers.js";

/** One BullMQ worker per queue, each handing its jobs to the handlers. */
function processorFor(queue: QueueName, config: AppConfig): Type<WorkerHost> {
  @Processor(queue, QUEUES[queue](config))
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

export function queueProcessors(config: AppConfig): Type<WorkerHost>[] {
  return (Object.keys(QUEUES) as QueueName[]).map((queue) => processorFor(queue, config));
}
