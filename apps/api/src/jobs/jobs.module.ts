import { BullModule } from "@nestjs/bullmq";
import { type DynamicModule, Global, Module } from "@nestjs/common";
import { DiscoveryModule } from "@nestjs/core";
import type { Resources } from "../common/core.module.js";
import { DependencyChecksRepository } from "../common/dependency-checks.repository.js";
import { JobRepository } from "./job.repository.js";
import { JOB_DEFINITIONS, type JobDefinition, QUEUES } from "./job-definition.js";
import { JobHandlers } from "./job-handlers.js";
import { queueProcessors } from "./queue-processors.js";

/**
 * The queues for every role; the workers and handlers of `jobs` (the application's list, composed at its
 * root) only where the role runs jobs.
 */
@Global()
@Module({})
export class JobsModule {
  static forResources({ config, redis, redisPrefix }: Resources, jobs: JobDefinition[]): DynamicModule {
    const runsJobs = config.role !== "api";
    return {
      module: JobsModule,
      imports: [
        DiscoveryModule,
        BullModule.forRoot({ connection: redis, prefix: redisPrefix }),
        BullModule.registerQueue(...Object.keys(QUEUES).map((name) => ({ name }))),
      ],
      providers: [
        JobRepository,
        ...(runsJobs
          ? [
              { provide: JOB_DEFINITIONS, useValue: jobs },
              JobHandlers,
              DependencyChecksRepository,
              ...queueProcessors(config),
            ]
          : []),
      ],
      exports: [JobRepository],
    };
  }
}
