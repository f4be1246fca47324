import { createHash } from "node:crypto";
import { z } from "zod";
import { defineJob } from "../jobs/job-definition.js";
import type { DeliveryKey } from "./webhook.statements.js";

/**
 * Deliveries to one webhook taken off the queue together: one job, one read and one write of the successes
 * for them all, instead of one each. A relay batch (500 events) still makes several groups per webhook, to
 * spread over worker processes; the requests under way stay bounded by WEBHOOK_CONCURRENCY, not by this.
 */
export const DELIVERY_GROUP_SIZE = 100;

/**
 * One attempt to deliver each of a few events to one webhook. The attempt and the events
 * make the id: queueing the same group twice (the relay's sweep after Redis lost its data) keeps one job.
 */
export const deliverWebhookJob = defineJob({
  name: "webhooks.deliver",
  queue: "webhooks",
  payload: z.object({
    webhookId: z.uuid(),
    attempt: z.number().int().min(1),
    eventIds: z.array(z.uuid()).min(1).max(DELIVERY_GROUP_SIZE),
  }),
  jobId: ({ webhookId, attempt, eventIds }) =>
    `webhook-${webhookId}-${attempt}-${createHash("sha256").update(eventIds.join(",")).digest("base64url")}`,
  options: {
    // The endpoint's own failures follow the retry schedule; these attempts cover the platform's (database).
    attempts: 3,
    backoff: { type: "exponential", delay: 1_000 },
    // Gone at once, so that the sweep may queue the deliveries again under the same id; a job queued again
    // after its attempt was made finds the delivery moved on in PostgreSQL and does nothing.
    removeOnComplete: true,
    removeOnFail: true,
  },
});

export type DeliveryGroup = z.input<typeof deliverWebhookJob.payload>;

/**
 * Queues again the deliveries whose job is overdue by WEBHOOK_SWEEP_SECONDS: enqueueing failed after the
 * commit, or Redis lost its data. `afterOutage`: run as Redis or PostgreSQL answers again, every delivery
 * due by now (a job queued twice under one id is kept once, and one that finds its attempt made does nothing).
 */
export const sweepWebhookDeliveriesJob = defineJob({
  name: "webhooks.sweep",
  queue: "webhooks",
  payload: z.object({ afterOutage: z.boolean().default(false) }),
  schedule: {
    everyMs: ({ webhooks }) => webhooks.sweepSeconds * 1000,
    payload: {},
    afterOutage: { afterOutage: true },
  },
  options: { removeOnComplete: true, removeOnFail: true },
});

/** Deliveries due, in the order given, as jobs: each webhook's of one attempt in groups of the group size. */
export function groupDeliveries(deliveries: readonly (DeliveryKey & { attempt: number })[]): DeliveryGroup[] {
  const open = new Map<string, DeliveryGroup>();
  const groups: DeliveryGroup[] = [];
  for (const { webhookId, attempt, eventId } of deliveries) {
    const key = `${webhookId}/${attempt}`;
    let group = open.get(key);
    if (!group || group.eventIds.length === DELIVERY_GROUP_SIZE) {
      group = { webhookId, attempt, eventIds: [] };
      open.set(key, group);
      groups.push(group);
    }
    group.eventIds.push(eventId);
  }
  return groups;
}
