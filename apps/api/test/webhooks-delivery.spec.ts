import { describe, expect, it } from "vitest";
import { COMPLETED_LIFECYCLE } from "../../../tests/support/generation-events.js";
import { readJson } from "../../../tests/support/json.js";
import { until } from "../../../tests/support/until.js";
import type { ReceivedWebhook } from "../../../tests/support/webhook-receiver.js";
import { fox, GENERATION_EVENTS, localDeliveryApi, verify } from "../../../tests/support/webhooks-api.js";
import { DELIVERY_GROUP_SIZE } from "../src/webhooks/webhook.jobs.js";

describe("webhook delivery to local receivers", () => {
  const { api, hooks, receiver } = localDeliveryApi();

  it("delivers a generation's events, signed, to the webhooks that chose them", async () => {
    const everything = await receiver();
    const defaults = await receiver();
    const { apiKey } = await api().createAccount();
    const all = await hooks.subscribe(apiKey, { url: everything.url, events: GENERATION_EVENTS });
    const finalOnly = await hooks.subscribe(apiKey, { url: defaults.url });

    const created = await readJson(await hooks.send("POST", "/v1/image-generations", apiKey, fox));
    const received = await everything.waitFor(COMPLETED_LIFECYCLE.length);
    await defaults.waitFor(1);

    // Delivery is not strictly ordered: the events' ids (UUIDv7) give the order they happened in.
    const inOrder = [...received].sort((a, b) => a.envelope.id.localeCompare(b.envelope.id));
    expect(inOrder.map((request) => request.envelope.type)).toEqual(COMPLETED_LIFECYCLE);
    expect(inOrder.map((request) => (request.envelope.data as { status: number }).status)).toEqual([
      1, 2, 2, 2, 2, 2, 3,
    ]);
    for (const request of received) {
      expect(verify(all.secret, request)).toEqual(request.envelope);
      expect(request.headers["webhook-id"]).toBe(request.envelope.id);
      expect(request.envelope).toMatchObject({ api_version: 1, data: { id: created.id } });
      expect(Math.abs(request.envelope.created - Date.now() / 1000)).toBeLessThan(60);
    }
    const completed = inOrder.at(-1)?.envelope.data as { images: unknown[] };
    expect(completed.images).toHaveLength(4);
    // The default subscription: print.completed (and print.failed) only. A test event sent after every
    // other delivery was queued arrives alone after it: nothing else was on its way.
    const marker = await hooks.test(apiKey, finalOnly.webhookId);
    await defaults.waitFor(2);
    expect(defaults.received.map((request) => request.envelope.type)).toEqual(["print.completed", "test"]);
    expect(defaults.received[1]?.envelope.id).toBe(marker);
    expect(verify(finalOnly.secret, defaults.received[0] as ReceivedWebhook)).toBeTruthy();
    expect(() => verify(all.secret, defaults.received[0] as ReceivedWebhook)).toThrow();
  });

  it("delivers bursts of one webhook's events over kept-alive connections, opened once", async () => {
    const endpoint = await receiver();
    const { apiKey, accountId } = await api().createAccount();
    const { secret } = await hooks.subscribe(apiKey, { url: endpoint.url });
    const burst = async (first: number) => {
      await api().resources.database.prisma.outboxEvent.createMany({
        data: Array.from({ length: DELIVERY_GROUP_SIZE }, (_, index) => ({
          accountId,
          type: "print.completed",
          payload: { index: first + index },
        })),
      });
      return endpoint.waitFor(first + DELIVERY_GROUP_SIZE);
    };
    await burst(0);
    const received = await burst(DELIVERY_GROUP_SIZE);
    const indexes = received.map((request) => (request.envelope.data as { index: number }).index);
    expect(indexes.sort((a, b) => a - b)).toEqual(
      Array.from({ length: 2 * DELIVERY_GROUP_SIZE }, (_, index) => index),
    );
    for (const request of received) expect(verify(secret, request)).toEqual(request.envelope);
    // The second burst finds the first one's connections open.
    expect(endpoint.connections).toBeLessThanOrEqual(DELIVERY_GROUP_SIZE);
  });

  it("sends a test event to one webhook and records each attempt", async () => {
    const endpoint = await receiver();
    const { apiKey } = await api().createAccount();
    const first = await hooks.subscribe(apiKey, { url: endpoint.url });
    const other = await hooks.subscribe(apiKey, { url: `${endpoint.url}/other` });
    const eventId = await hooks.test(apiKey, first.webhookId);
    const [request] = await endpoint.waitFor(1);
    expect(request?.envelope).toMatchObject({
      id: eventId,
      type: "test",
      data: { webhookId: first.webhookId },
    });
    await until(async () => (await hooks.attempts(apiKey, first.webhookId)).length === 1);
    expect(await hooks.attempts(apiKey, first.webhookId)).toEqual([
      expect.objectContaining({ eventId, attempt: 1, statusCode: 200, durationMs: expect.any(Number) }),
    ]);
    // A test event of the other webhook, sent next, is the only request after it.
    const marker = await hooks.test(apiKey, other.webhookId);
    await endpoint.waitFor(2);
    expect(endpoint.received.map((request) => request.envelope.id)).toEqual([eventId, marker]);
  });

  it("sends the event again, same id, after a 500", async () => {
    const endpoint = await receiver((_, index) => ({ status: index === 0 ? 500 : 200 }));
    const { apiKey } = await api().createAccount();
    const { webhookId, secret } = await hooks.subscribe(apiKey, { url: endpoint.url });
    const eventId = await hooks.test(apiKey, webhookId);
    const [failed, delivered] = (await endpoint.waitFor(2)) as [ReceivedWebhook, ReceivedWebhook];
    expect(failed.headers["webhook-id"]).toBe(eventId);
    expect(delivered.headers["webhook-id"]).toBe(eventId);
    expect(verify(secret, delivered)).toMatchObject({ id: eventId });
    await until(async () => (await hooks.attempts(apiKey, webhookId)).length === 2);
    expect(await hooks.attempts(apiKey, webhookId)).toEqual([
      expect.objectContaining({ attempt: 2, statusCode: 200 }),
      expect.objectContaining({ attempt: 1, statusCode: 500, error: "500 Internal Server Error" }),
    ]);
  });

  it("gives up on an endpoint that does not answer in time, and tries again", async () => {
    const endpoint = await receiver((_, index) => ({ status: 200, delayMs: index === 0 ? 3_000 : 0 }));
    const { apiKey } = await api().createAccount();
    const { webhookId } = await hooks.subscribe(apiKey, { url: endpoint.url });
    await hooks.test(apiKey, webhookId);
    await endpoint.waitFor(2);
    await until(async () => (await hooks.attempts(apiKey, webhookId)).length === 2);
    expect(await hooks.attempts(apiKey, webhookId)).toEqual([
      expect.objectContaining({ attempt: 2, statusCode: 200 }),
      expect.objectContaining({ attempt: 1, error: "no answer within 1 s" }),
    ]);
  });

  it("treats a redirect as a failure", async () => {
    const endpoint = await receiver((_, index) =>
      index === 0 ? { status: 302, headers: { location: "http://127.0.0.1:9/elsewhere" } } : { status: 204 },
    );
    const { apiKey } = await api().createAccount();
    const { webhookId } = await hooks.subscribe(apiKey, { url: endpoint.url });
    await hooks.test(apiKey, webhookId);
    await endpoint.waitFor(2);
    await until(async () => (await hooks.attempts(apiKey, webhookId)).length === 2);
    expect((await hooks.attempts(apiKey, webhookId))[1]).toMatchObject({
      statusCode: 302,
      error: expect.stringMatching(/redirects are not followed/),
    });
  });

  it("delivers to an endpoint that was down when the event happened, once it is up", async () => {
    const endpoint = await receiver();
    const { apiKey } = await api().createAccount();
    const { webhookId } = await hooks.subscribe(apiKey, { url: endpoint.url });
    await endpoint.stop();
    const eventId = await hooks.test(apiKey, webhookId);
    await until(async () => (await hooks.attempts(apiKey, webhookId)).length >= 1);
    // A coarse reason: the raw socket error would tell which address and port answered how.
    expect((await hooks.attempts(apiKey, webhookId))[0]?.error).toBe("connection refused");
    await endpoint.start();
    const [request] = await endpoint.waitFor(1);
    expect(request?.envelope.id).toBe(eventId);
  });

  it("honours Retry-After on a 429", async () => {
    const endpoint = await receiver((_, index) =>
      index === 0 ? { status: 429, headers: { "retry-after": "1" } } : { status: 200 },
    );
    const { apiKey } = await api().createAccount();
    const { webhookId } = await hooks.subscribe(apiKey, { url: endpoint.url });
    await hooks.test(apiKey, webhookId);
    await endpoint.waitFor(1);
    const firstAt = Date.now();
    await endpoint.waitFor(2);
    // The schedule alone would have retried after 0.1 s.
    expect(Date.now() - firstAt).toBeGreaterThanOrEqual(900);
  });
});

describe("the webhook relay", () => {
  // An interval no test waits for: only the outbox's notification at commit wakes the relay in time.
  const { api, hooks, receiver } = localDeliveryApi({ WEBHOOK_RELAY_INTERVAL_MS: "60000" });

  it("relays an event as its transaction commits, without waiting for its interval", async () => {
    const endpoint = await receiver();
    const { apiKey } = await api().createAccount();
    const { webhookId } = await hooks.subscribe(apiKey, { url: endpoint.url });
    const eventId = await hooks.test(apiKey, webhookId);
    const [request] = await endpoint.waitFor(1);
    expect(request?.envelope.id).toBe(eventId);
  });
});
