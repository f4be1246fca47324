import { z } from "zod";
import { defineJob } from "../jobs/job-definition.js";

/** Restores due buckets to their creditTotal; runs every ten minutes and catches up after downtime. */
export const renewCreditsJob = defineJob({
  name: "credits.renew",
  queue: "credits",
  payload: z.object({}),
  options: { removeOnComplete: 100, removeOnFail: 1000 },
  schedule: { everyMs: 10 * 60_000, payload: {} },
});
