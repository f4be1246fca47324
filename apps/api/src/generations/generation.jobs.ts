import type { Prisma } from "@imagehub/db";
import { IMAGE_ENGINE_NAMES } from "@imagehub/domain";
import { z } from "zod";
import { defineJob } from "../jobs/job-definition.js";
import type { GenerationWithImages } from "./generation.view.js";

/** How a generation is queued: fast ones before every relax one. */
const PROCESS_MODE = z.enum(["fast", "relax"]);

/** A JSON column's value: JSON by construction, since a job's data is parsed JSON. */
const jsonColumn = z.custom<Prisma.JsonValue>((value) => value !== undefined);

/**
 * The generation as the create or retry that queued the job wrote it, Pending, with its images: the worker
 * starts it from this copy rather than reading it first (one statement fewer a generation). While Pending a
 * generation changes only by a retry (a new attempt, a new job) or a delete, so the copy is the row that the
 * start changes, when it changes one; a start that changes nothing falls back to reading the row.
 */
const queuedGeneration = z.object({
  id: z.uuid(),
  accountId: z.uuid(),
  apiKeyId: z.uuid().nullable(),
  name: z.string(),
  prompt: z.string(),
  additionalPrompt: z.string().nullable(),
  mode: z.enum(["simple", "advanced"]),
  optimizePrompt: z.boolean(),
  optimizedPrompt: z.string().nullable(),
  params: jsonColumn,
  tags: z.array(z.string()),
  metaData: jsonColumn,
  processMode: PROCESS_MODE,
  status: z.number().int(),
  failureReason: z.string().nullable(),
  engine: z.string().nullable(),
  engineModel: z.string().nullable(),
  progress: z.number().int().nullable(),
  creditHeld: z.boolean(),
  attempt: z.number().int(),
  workerToken: z.string().nullable(),
  jobRun: z.number().int(),
  // Dates travel in the job as ISO texts.
  queuedAt: z.coerce.date(),
  createdAt: z.coerce.date(),
  updatedAt: z.coerce.date(),
  images: z.array(z.object({ id: z.uuid(), titles: jsonColumn, free: z.boolean(), validate: z.boolean() })),
}) satisfies z.ZodType<GenerationWithImages, unknown>;

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
    processMode: PROCESS_MODE,
    run: z.number().int().min(0).default(0),
    /** The engine chosen for it (absent from jobs queued before engines were chosen: the default). */
    engine: z.enum(IMAGE_ENGINE_NAMES).optional(),
    /** Absent from jobs the sweep queues again, and from jobs queued before copies were sent: read instead. */
    queued: queuedGeneration.optional(),
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
