import { z } from "zod";
import { defineJob } from "../jobs/job-definition.js";

/**
 * One attempt to deliver one event to one webhook. The attempt is part of the id: queueing the same attempt
 * twice (the relay's sweep after Redis lost its data) keeps one job.
 */
export const deliverWebhookJob = defineJob({
  name: "webhooks.deliver",
  queue: "webhooks",
  payload: z.object({ eventId: z.uuid(), webhookId: z.uuid(), attempt: z.number().int().min(1) }),
  jobId: ({ eventId, webhookId, attempt }) => `webhook-${eventId}-${webhookId}-${attempt}`,
  options: {
    // The endpoint's own failures follow the retry schedule; these attempts cover the platform's (database).
    attempts: 3,
    backoff: { type: "exponential", delay: 1_000 },
    // Gone at once, so that the sweep may queue the delivery again under the same id; a job queued again
    // after its attempt was made finds the delivery moved on in PostgreSQL and does nothing.
    removeOnComplete: true,
    removeOnFail: true,
  },
});
