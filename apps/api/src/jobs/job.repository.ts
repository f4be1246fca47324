import { getQueueToken } from "@nestjs/bullmq";
import { Injectable } from "@nestjs/common";
import { ModuleRef } from "@nestjs/core";
import type { Queue } from "bullmq";
import type { z } from "zod";
import type { JobDefinition } from "./job-definition.js";

/** The only code that talks to the BullMQ queues. */
@Injectable()
export class JobRepository {
  constructor(private readonly moduleRef: ModuleRef) {}

  async enqueue<Payload extends z.ZodType>(
    definition: JobDefinition<Payload>,
    payload: z.input<Payload>,
  ): Promise<string> {
    const data = definition.payload.parse(payload);
    const job = await this.queue(definition).add(definition.name, data, {
      ...definition.options,
      ...(definition.jobId && { jobId: definition.jobId(data) }),
      ...(definition.priority && { priority: definition.priority(data) }),
    });
    return job.id as string;
  }

  /** Creates or updates the job's scheduler; idempotent, so every worker may call it at start. */
  async schedule(definition: JobDefinition): Promise<void> {
    if (!definition.schedule) return;
    await this.queue(definition).upsertJobScheduler(
      definition.name,
      { every: definition.schedule.everyMs },
      {
        name: definition.name,
        data: definition.payload.parse(definition.schedule.payload),
        opts: definition.options,
      },
    );
  }

  queue(definition: JobDefinition): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(definition.queue), { strict: false });
  }
}
