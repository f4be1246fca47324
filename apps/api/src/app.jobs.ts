import { renewCreditsJob } from "./accounts/credit-renewal.job.js";
import { indexLeftoverImagesJob } from "./catalogue/catalogue.jobs.js";
import { runGenerationJob, sweepGenerationsJob } from "./generations/generation.jobs.js";
import { expireIdempotencyKeysJob } from "./idempotency/idempotency.jobs.js";
import type { JobDefinition } from "./jobs/job-definition.js";
import { deliverWebhookJob, sweepWebhookDeliveriesJob } from "./webhooks/webhook.jobs.js";

/** Every job of the application; each must have exactly one `@OnJob` handler (checked at start-up). */
export const JOBS: JobDefinition[] = [
  renewCreditsJob,
  runGenerationJob,
  sweepGenerationsJob,
  deliverWebhookJob,
  sweepWebhookDeliveriesJob,
  expireIdempotencyKeysJob,
  indexLeftoverImagesJob,
];
