import { SetMetadata } from "@nestjs/common";
import type { JobDefinition } from "./job-definition.js";

export const JOB_HANDLER = Symbol("JobHandler");

/** Marks the service method that runs a job; it receives the parsed payload. */
export const OnJob = (definition: JobDefinition): MethodDecorator => SetMetadata(JOB_HANDLER, definition);
