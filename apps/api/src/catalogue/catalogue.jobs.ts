import { z } from "zod";
import { defineJob } from "../jobs/job-definition.js";

/**
 * Indexes for search the catalogue images a bulk load (an import, a seed) left pending when it stopped
 * before its end; every 30 s, once one of them has waited a minute.
 */
export const indexLeftoverImagesJob = defineJob({
  name: "catalogue.index-leftovers",
  queue: "credits",
  payload: z.object({}),
  options: { removeOnComplete: 100, removeOnFail: 1000 },
  schedule: { everyMs: 30_000, payload: {} },
});
