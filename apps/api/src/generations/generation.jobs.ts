import { IMAGE_ENGINE_NAMES } from "@imagehub/domain";
import { z } from "zod";
import { defineJob } from "../jobs/job-definition.js";

/**
 * Runs one attempt of a generation; the attempt is part of the id, so that a retry is a new job, and so is
 * the run, so that the sweep can queue again an attempt whose job is lost or ran out of attempts.
 */
export const runGenerationJob = defineJob({
  name: "generations.run",
  queue: "generations",
  payload: z.object({
    generationId: z.uuid(),
    attempt: z.number().int().min(1),
    processMode: z.enum(["fast", "relax"]),
    run: z.number().int().min(0).default(0),
    /** The engine chosen for it (absent from jobs queued before engines were chosen: the default). */
    engine: z.enum(IMAGE_ENGINE_NAMES).optional(),
  }),
  jobId: ({ generationId, attempt, run }) =>
    run === 0 ? `generation-${generationId}-${attempt}` : `generation-${generationId}-${attempt}-run${run}`,
  // Fast generations are taken before every relax one.
  priority: ({ processMode }) => (processMode === "fast" ? 1 : 10),
  options: {
    // A step that failed for want of the database or storage is tried again; the engine's own failures
    // end the generation in Error instead. Every 0.5–1 s, so that a run goes on within a second of a short
    // outage's end, and for a few seconds only, so that a long outage is not met by a retry per generation
    // every second: the sweep queues again what ran out of attempts, once the database answers.
    attempts: 6,
    backoff: { type: "fixed", delay: 1_000, jitter: 0.5 },
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  },
});

/**
 * Keeps generations moving when their job is gone. Pending or Processing ones whose job is neither waiting
 * nor running (Redis lost it, enqueueing failed after the commit, it ran out of attempts while the database
 * was away, it stalled too often) are queued again under a fresh job id. Those older than their lifetime
 * end in Error, their credit returned. `afterOutage`: run as Redis or PostgreSQL answers again, when even
 * the generations advanced a moment ago may have lost their job.
 */
export const sweepGenerationsJob = defineJob({
  name: "generations.sweep",
  queue: "generations",
  payload: z.object({ afterOutage: z.boolean().default(false) }),
  schedule: {
    everyMs: ({ generations }) => generations.sweepSeconds * 1000,
    payload: {},
    afterOutage: { afterOutage: true },
  },
});
