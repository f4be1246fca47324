import { z } from "zod";
import { defineJob } from "../jobs/job-definition.js";

/** Forgets idempotency keys older than they are kept; hourly. */
export const expireIdempotencyKeysJob = defineJob({
  name: "idempotency.expire",
  queue: "credits",
  payload: z.object({}),
  options: { removeOnComplete: 100, removeOnFail: 1000 },
  schedule: { everyMs: 3600_000, payload: {} },
});
