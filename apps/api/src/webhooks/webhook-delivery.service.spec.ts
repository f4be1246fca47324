import { WebhookEnvelopeSchema } from "@imagehub/domain";
import { describe, expect, it, vi } from "vitest";
import type { AppConfig } from "../common/config.js";
import type { JobRepository } from "../jobs/job.repository.js";
import type { MetricsService } from "../metrics/metrics.service.js";
import { WebhookDeliveryService } from "./webhook-delivery.service.js";
import type { SendOutcome, WebhookSender } from "./webhook-sender.js";
import type { DeliveryToMake, WebhooksRepository } from "./webhooks.repository.js";

const webhookId = "00000000-0000-4000-8000-00000000000a";
const event = (index: number) => `00000000-0000-4000-9000-${String(index).padStart(12, "0")}`;

function pending(overrides: Partial<DeliveryToMake> = {}): DeliveryToMake {
  return {
    status: "pending",
    attempts: 0,
    url: "https://hooks.example.test/in",
    secret: `whsec_${Buffer.alloc(32, 1).toString("base64")}`,
    disabled: false,
    type: "print.completed",
    payloadJson: '{"id": "generation"}',
    createdAt: new Date(),
    ...overrides,
  };
}

/** The service over a repository holding `deliveries` and a sender answering `outcomeOf(eventId)`. */
function deliveryService(
  deliveries: Map<string, DeliveryToMake>,
  outcomeOf: (eventId: string) => SendOutcome,
) {
  const webhooks = {
    findDeliveries: vi.fn(async () => deliveries),
    recordSuccesses: vi.fn(async () => {}),
    recordFailure: vi.fn(async () => ({ isDisabled: false })),
  };
  const sender = { send: vi.fn(async (_: unknown, message: { id: string }) => outcomeOf(message.id)) };
  const jobs = { enqueue: vi.fn(async () => "job") };
  const service = new WebhookDeliveryService(
    webhooks as unknown as WebhooksRepository,
    sender as unknown as WebhookSender,
    jobs as unknown as JobRepository,
    { webhooksDelivered: () => {}, webhookFailed: () => {} } as unknown as MetricsService,
    { webhooks: { retrySeconds: [10, 60] } } as AppConfig,
  );
  return { service, webhooks, sender, jobs };
}

describe("WebhookDeliveryService", () => {
  it("reads a group's deliveries in one statement and records its successes in one", async () => {
    const eventIds = [1, 2, 3].map(event);
    const { service, webhooks, sender } = deliveryService(
      new Map(eventIds.map((id) => [id, pending()])),
      () => ({ delivered: true, statusCode: 204, durationMs: 3 }),
    );
    await service.deliver({ webhookId, attempt: 1, eventIds });
    expect(webhooks.findDeliveries).toHaveBeenCalledTimes(1);
    expect(sender.send).toHaveBeenCalledTimes(3);
    expect(webhooks.recordSuccesses).toHaveBeenCalledTimes(1);
    expect(webhooks.recordSuccesses.mock.calls[0]).toEqual([
      eventIds.map((eventId) => ({ eventId, webhookId, attempt: 1, statusCode: 204, durationMs: 3 })),
    ]);
  });

  it("sends the envelope of the event with its payload's JSON text as it is", async () => {
    const createdAt = new Date("2026-11-27T12:00:00.500Z");
    const { service, sender } = deliveryService(
      new Map([
        [event(1), pending({ type: "print.progress", payloadJson: '{"id": "g", "n": [1, 2]}', createdAt })],
      ]),
      () => ({ delivered: true, statusCode: 204, durationMs: 1 }),
    );
    await service.deliver({ webhookId, attempt: 1, eventIds: [event(1)] });
    const [, message] = sender.send.mock.calls[0] as [unknown, { id: string; body: string }];
    expect(WebhookEnvelopeSchema.parse(JSON.parse(message.body))).toEqual({
      id: event(1),
      api_version: 1,
      created: createdAt.getTime() / 1000 - 0.5,
      type: "print.progress",
      data: { id: "g", n: [1, 2] },
    });
  });

  it("skips what is done, made already or held, and queues each failure's next attempt on its own", async () => {
    const { service, webhooks, sender, jobs } = deliveryService(
      new Map([
        [event(1), pending({ status: "delivered", attempts: 1 })],
        [event(2), pending({ attempts: 1 })],
        [event(3), pending({ disabled: true })],
        [event(4), pending()],
        [event(5), pending()],
      ]),
      (eventId) =>
        eventId === event(4)
          ? { delivered: false, statusCode: 500, durationMs: 2, error: "500 Internal Server Error" }
          : { delivered: true, statusCode: 200, durationMs: 2 },
    );
    await service.deliver({ webhookId, attempt: 1, eventIds: [1, 2, 3, 4, 5].map(event) });
    expect(sender.send.mock.calls.map(([, message]) => message.id)).toEqual([event(4), event(5)]);
    expect(webhooks.recordFailure).toHaveBeenCalledWith(
      expect.objectContaining({
        eventId: event(4),
        attempt: 1,
        statusCode: 500,
        retryInSeconds: expect.any(Number),
      }),
    );
    expect(webhooks.recordSuccesses).toHaveBeenCalledWith([expect.objectContaining({ eventId: event(5) })]);
    expect(jobs.enqueue).toHaveBeenCalledWith(
      expect.objectContaining({ name: "webhooks.deliver" }),
      { webhookId, attempt: 2, eventIds: [event(4)] },
      { delayMs: expect.any(Number) },
    );
  });
});
