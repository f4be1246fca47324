import { z } from "zod";
import { defineJob } from "../jobs/job-definition.js";

/** Runs one attempt of a generation; the attempt is part of the id, so that a retry is a new job. */
export const runGenerationJob = defineJob({
  name: "generations.run",
  queue: "generations",
  payload: z.object({
    generationId: z.uuid(),
    attempt: z.number().int().min(1),
    processMode: z.enum(["fast", "relax"]),
  }),
  jobId: ({ generationId, attempt }) => `generation-${generationId}-${attempt}`,
  // Fast generations are taken before every relax one.
  priority: ({ processMode }) => (processMode === "fast" ? 1 : 10),
  options: {
    // A step that failed for want of the database or storage is tried again; the engine's own failures
    // end the generation in Error instead.
    attempts: 4,
    backoff: { type: "exponential", delay: 2_000 },
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  },
});

/**
 * Keeps generations moving when their job is gone. Pending ones without a job (Redis lost its data, or
 * enqueueing failed right after the commit) are queued again; the deterministic job id makes that harmless
 * for those that have one. Processing ones that nobody has advanced for longer than a run may take (their
 * job ran out of attempts, or stalled too often) end in Error, their credit returned.
 */
export const sweepGenerationsJob = defineJob({
  name: "generations.sweep",
  queue: "generations",
  payload: z.object({}),
  schedule: { everyMs: 60_000, payload: {} },
});
