import { OnWorkerEvent, Processor, WorkerHost } from "@nestjs/bullmq";
import { type BeforeApplicationShutdown, Logger, type Type } from "@nestjs/common";
import { type Job, WaitingError } from "bullmq";
import type { AppConfig } from "../common/config.js";
import { QUEUES, type QueueName } from "./job-definition.js";
import { JobHandlers } from "./job-handlers.js";
import { redisErrorLog } from "./redis-error-log.js";

/**
 * Queues whose running jobs go back to the queue when their worker stops, for another worker to start at
 * once rather than when their lock expires: generations run for minutes, and each step is fenced by the
 * lock token, so the job left running here until the process exits can write nothing once taken over.
 * Short jobs (a delivery, a renewal) finish within the shutdown grace instead.
 */
const RELEASED_ON_SHUTDOWN: ReadonlySet<QueueName> = new Set(["generations"]);

/** One BullMQ worker per queue, each handing its jobs to the handlers. */
function processorFor(queue: QueueName, config: AppConfig): Type<WorkerHost> {
  @Processor(queue, QUEUES[queue](config))
  class QueueProcessor extends WorkerHost implements BeforeApplicationShutdown {
    private readonly logger = new Logger("Jobs");
    private readonly logRedisError = redisErrorLog(this.logger, `${queue} worker`);
    private readonly stopping = new AbortController();
    private readonly running = new Set<Promise<unknown>>();

    constructor(private readonly handlers: JobHandlers) {
      super();
    }

    process(job: Job, token?: string): Promise<unknown> {
      const run = this.handlers.run(job);
      if (!RELEASED_ON_SHUTDOWN.has(queue)) return run;
      const released = new Promise<never>((_, reject) => {
        const release = () => {
          job.moveToWait(token).then(() => {
            this.logger.log(`${job.name} (${job.id}) moved back to the queue: this worker is stopping`);
            // BullMQ's own signal that the job left the active state: neither completed nor failed.
            reject(new WaitingError());
          }, reject);
        };
        this.stopping.signal.addEventListener("abort", release, { once: true });
        // Released, the handler goes on until the process exits; what it ends with is nobody's business.
        run.finally(() => this.stopping.signal.removeEventListener("abort", release)).catch(() => undefined);
      });
      const outcome = Promise.race([run, released]);
      this.running.add(outcome);
      return outcome.finally(() => this.running.delete(outcome));
    }

    /** Before the worker closes (it would wait for its jobs): no new job, and the running ones go back. */
    async beforeApplicationShutdown(): Promise<void> {
      if (!RELEASED_ON_SHUTDOWN.has(queue)) return;
      await this.worker.pause(true);
      this.stopping.abort();
      await Promise.allSettled([...this.running]);
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
