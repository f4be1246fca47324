import { OnWorkerEvent, Processor, WorkerHost } from "@nestjs/bullmq";
import { Logger, type Type } from "@nestjs/common";
import type { Job } from "bullmq";
import type { AppConfig } from "../common/config.js";
import { QUEUES, type QueueName } from "./job-definition.js";
import { JobHandlers } from "./job-handlers.js";
import { redisErrorLog } from "./redis-error-log.js";

/** One BullMQ worker per queue, each handing its jobs to the handlers. */
function processorFor(queue: QueueName, config: AppConfig): Type<WorkerHost> {
  @Processor(queue, QUEUES[queue](config))
  class QueueProcessor extends WorkerHost {
    private readonly logRedisError = redisErrorLog(new Logger("Jobs"), `${queue} worker`);

    constructor(private readonly handlers: JobHandlers) {
      super();
    }

    process(job: Job): Promise<unknown> {
      return this.handlers.run(job);
    }

    @OnWorkerEvent("error")
    onError(error: Error): void {
      this.logRedisError(error);
    }
  }
  Object.defineProperty(QueueProcessor, "name", { value: `${queue}QueueProcessor` });
  return QueueProcessor;
}

export function queueProcessors(config: AppConfig): Type<WorkerHost>[] {
  return (Object.keys(QUEUES) as QueueName[]).map((queue) => processorFor(queue, config));
}
