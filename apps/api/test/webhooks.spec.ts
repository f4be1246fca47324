import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL, uniqueName } from "../../../tests/support/environment.js";
import { COMPLETED_LIFECYCLE } from "../../../tests/support/generation-events.js";
import { readJson } from "../../../tests/support/json.js";
import { killRedisServer, startRedisServer } from "../../../tests/support/redis-server.js";
import { demoKey, freePort, start, stop } from "../../../tests/support/start-command.mjs";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { createTestDatabase } from "../../../tests/support/test-database.js";
import { until } from "../../../tests/support/until.js";
import { type ReceivedWebhook, WebhookReceiver } from "../../../tests/support/webhook-receiver.js";
import { JobRepository } from "../src/jobs/job.repository.js";
import { DELIVERY_GROUP_SIZE } from "../src/webhooks/webhook.jobs.js";

const GENERATION_EVENTS = [
  "print.created",
  "print.active",
  "print.progress",
  "print.completed",
  "print.failed",
];

/** Receivers on 127.0.0.1 over http, retries within a second, failures noticed quickly. */
const LOCAL_DELIVERY = {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_RETRY_SCHEDULE: "0.1,0.2,0.3,0.4,0.5,0.5,0.5",
  WEBHOOK_TIMEOUT_SECONDS: "1",
  WEBHOOK_RELAY_INTERVAL_MS: "20",
  WEBHOOK_DISABLE_AFTER_SECONDS: "1",
};

const fox = { name: "Fox", prompt: "a red fox in the snow", mode: "simple" };

function webhooksOf(api: () => TestApi) {
  const send = (method: string, path: string, apiKey: string, json?: unknown) =>
    api().request(path, { apiKey, method, ...(json !== undefined && { json }) });
  return {
    send,
    subscribe: async (apiKey: string, body: { url: string; events?: string[] }) => {
      const response = await send("POST", "/v1/api-keys/webhook/subscribe", apiKey, body);
      expect(response.status, JSON.stringify(await response.clone().json())).toBe(201);
      return (await readJson(response)) as { webhookId: string; secret: string };
    },
    get: (apiKey: string, id: string) => send("GET", `/v1/api-keys/webhook/${id}`, apiKey),
    test: async (apiKey: string, id: string) => {
      const response = await send("POST", `/v1/api-keys/webhook/${id}/test`, apiKey);
      expect(response.status).toBe(202);
      return ((await readJson(response)) as { eventId: string }).eventId;
    },
    attempts: async (apiKey: string, id: string) =>
      (await readJson(await send("GET", `/v1/api-keys/webhook/${id}/attempts`, apiKey))).attempts as {
        eventId: string;
        attempt: number;
        statusCode?: number;
        error?: string;
      }[],
  };
}

function verify(secret: string, received: ReceivedWebhook) {
  return new StandardWebhook(secret).verify(received.body, {
    "webhook-id": received.headers["webhook-id"] as string,
    "webhook-timestamp": received.headers["webhook-timestamp"] as string,
    "webhook-signature": received.headers["webhook-signature"] as string,
  });
}

describe("webhooks with local receivers", () => {
  let api: TestApi;
  const receivers: WebhookReceiver[] = [];
  const hooks = webhooksOf(() => api);
  const receiver = async (responder?: ConstructorParameters<typeof WebhookReceiver>[0]) => {
    const started = await new WebhookReceiver(responder).start();
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    api = await startTestApi({ env: LOCAL_DELIVERY });
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((started) => started.stop()));
  });
  afterAll(() => api.close());

  it("subscribes, shows the webhook with its key's id (never the key) and unsubscribes", async () => {
    const { apiKey, apiKeyId } = await api.createAccount();
    const { webhookId, secret } = await hooks.subscribe(apiKey, { url: "http://127.0.0.1:9/hooks" });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const shown = await readJson(await hooks.get(apiKey, webhookId));
    expect(shown).toEqual({
      id: webhookId,
      apiKeyId,
      url: "http://127.0.0.1:9/hooks",
      events: ["print.completed", "print.failed"],
      createdAt: expect.any(String),
      disabled: false,
    });
    expect(JSON.stringify(shown)).not.toContain(apiKey);
    const listed = await readJson(await hooks.send("GET", "/v1/api-keys/webhooks", apiKey));
    expect(listed.webhooks.map((webhook: { id: string }) => webhook.id)).toEqual([webhookId]);

    const removed = await hooks.send("DELETE", `/v1/api-keys/webhook/unsubscribe/${webhookId}`, apiKey);
    expect(removed.status).toBe(200);
    expect(await removed.text()).toBe("");
    expect((await hooks.get(apiKey, webhookId)).status).toBe(404);
  });

  it("answers 404 to another account's key, for reading and for removing", async () => {
    const owner = await api.createAccount();
    const other = await api.createAccount();
    const { webhookId } = await hooks.subscribe(owner.apiKey, { url: "http://127.0.0.1:9/hooks" });
    expect((await hooks.get(other.apiKey, webhookId)).status).toBe(404);
    const removal = await hooks.send("DELETE", `/v1/api-keys/webhook/unsubscribe/${webhookId}`, other.apiKey);
    expect(removal.status).toBe(404);
    expect((await hooks.get(owner.apiKey, webhookId)).status).toBe(200);
    expect((await hooks.get(owner.apiKey, "not-a-uuid")).status).toBe(404);
  });

  it.each([
    [{ url: "not a url" }, /^url: /],
    [{ url: "ftp://example.test/hooks" }, /^url: /],
    [{ url: "https://example.test/hooks", events: ["print.exploded"] }, /^events\.0: /],
    [{ url: "https://example.test/hooks", events: [] }, /^events: /],
    [{ events: ["test"] }, /^url: is required/],
  ])("refuses %j with 400", async (body, message) => {
    const { apiKey } = await api.createAccount();
    const response = await hooks.send("POST", "/v1/api-keys/webhook/subscribe", apiKey, body);
    expect(response.status).toBe(400);
    expect((await readJson(response)).message).toEqual([expect.stringMatching(message)]);
  });

  it("keeps to the number of webhooks an account may have", async () => {
    const { apiKey } = await api.createAccount();
    for (let index = 0; index < api.resources.config.webhooks.maxPerAccount; index += 1) {
      await hooks.subscribe(apiKey, { url: `http://127.0.0.1:9/hooks/${index}` });
    }
    const response = await hooks.send("POST", "/v1/api-keys/webhook/subscribe", apiKey, {
      url: "http://127.0.0.1:9/one-more",
    });
    expect(response.status).toBe(409);
    expect((await readJson(response)).message).toEqual([expect.stringMatching(/at most 10 webhooks/)]);
  });

  it("delivers a generation's events, signed, to the webhooks that chose them", async () => {
    const everything = await receiver();
    const defaults = await receiver();
    const { apiKey } = await api.createAccount();
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
    const { apiKey, accountId } = await api.createAccount();
    const { secret } = await hooks.subscribe(apiKey, { url: endpoint.url });
    const burst = async (first: number) => {
      await api.resources.database.prisma.outboxEvent.createMany({
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
    const { apiKey } = await api.createAccount();
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
    const { apiKey } = await api.createAccount();
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
    const { apiKey } = await api.createAccount();
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
    const { apiKey } = await api.createAccount();
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
    const { apiKey } = await api.createAccount();
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
    const { apiKey } = await api.createAccount();
    const { webhookId } = await hooks.subscribe(apiKey, { url: endpoint.url });
    await hooks.test(apiKey, webhookId);
    await endpoint.waitFor(1);
    const firstAt = Date.now();
    await endpoint.waitFor(2);
    // The schedule alone would have retried after 0.1 s.
    expect(Date.now() - firstAt).toBeGreaterThanOrEqual(900);
  });

  it("disables the webhook on 410 Gone, until it is enabled again", async () => {
    const endpoint = await receiver((_, index) => ({ status: index === 0 ? 410 : 200 }));
    const { apiKey, accountId } = await api.createAccount();
    const { webhookId } = await hooks.subscribe(apiKey, { url: endpoint.url });
    await hooks.test(apiKey, webhookId);
    await until(async () => (await readJson(await hooks.get(apiKey, webhookId))).disabled === true);
    expect(await readJson(await hooks.get(apiKey, webhookId))).toMatchObject({
      disabled: true,
      disabledReason: "the endpoint answered 410 Gone",
    });
    const refused = await hooks.send("POST", `/v1/api-keys/webhook/${webhookId}/test`, apiKey);
    expect(refused.status).toBe(409);
    // Events of a disabled webhook are recorded, not sent: the whole generation, every event relayed.
    const created = await readJson(await hooks.send("POST", "/v1/image-generations", apiKey, fox));
    const generation = () => hooks.send("GET", `/v1/image-generations/${created.id}`, apiKey);
    await until(async () => (await readJson(await generation())).status === 3);
    const outbox = api.resources.database.prisma.outboxEvent;
    await until(async () => (await outbox.count({ where: { accountId, relayedAt: null } })) === 0);
    expect(endpoint.received).toHaveLength(1);

    // Without replay, what was held is given up.
    const enabled = await hooks.send("POST", `/v1/api-keys/webhook/${webhookId}/enable`, apiKey);
    expect(await readJson(enabled)).toMatchObject({ disabled: false });
    const eventId = await hooks.test(apiKey, webhookId);
    const marker = await hooks.test(apiKey, webhookId);
    const received = await endpoint.waitFor(3);
    expect(received.map((request) => request.envelope.id)).toEqual([expect.any(String), eventId, marker]);
  });

  it("disables the webhook once deliveries have failed for the period, tells its other webhooks, and replays on request", async () => {
    let isDown = true;
    const endpoint = await receiver(() => ({ status: isDown ? 500 : 200 }));
    const sibling = await receiver();
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images_print: 5 } });
    const { webhookId } = await hooks.subscribe(apiKey, { url: endpoint.url });
    const other = await hooks.subscribe(apiKey, { url: sibling.url, events: ["print.failed"] });
    await hooks.test(apiKey, webhookId);
    await until(async () => (await readJson(await hooks.get(apiKey, webhookId))).disabled === true);
    const disabled = await readJson(await hooks.get(apiKey, webhookId));
    expect(disabled).toMatchObject({
      disabled: true,
      disabledReason: expect.stringMatching(/^no delivery succeeded since /),
      disabledAt: expect.any(String),
      failingSince: expect.any(String),
    });
    // The other webhook hears of it, though it chose print.failed only.
    const [notice] = await sibling.waitFor(1);
    expect(notice?.envelope).toMatchObject({
      type: "webhook.disabled",
      data: { webhookId, url: endpoint.url, disabledReason: disabled.disabledReason },
    });
    expect(verify(other.secret, notice as ReceivedWebhook)).toBeTruthy();

    // Recorded while disabled, sent once it is enabled with replay, with the test event that failed.
    const created = await readJson(await hooks.send("POST", "/v1/image-generations", apiKey, fox));
    const generation = () => hooks.send("GET", `/v1/image-generations/${created.id}`, apiKey);
    await until(async () => (await readJson(await generation())).status === 3);
    const attemptsWhileDisabled = endpoint.received.length;
    const outbox = api.resources.database.prisma.outboxEvent;
    await until(async () => (await outbox.count({ where: { accountId, relayedAt: null } })) === 0);
    expect(endpoint.received).toHaveLength(attemptsWhileDisabled);
    isDown = false;
    const enabled = await hooks.send("POST", `/v1/api-keys/webhook/${webhookId}/enable`, apiKey, {
      replay: true,
    });
    expect(await readJson(enabled)).toEqual(expect.not.objectContaining({ failingSince: expect.anything() }));
    await endpoint.waitFor(attemptsWhileDisabled + 2);
    const replayed = endpoint.received.slice(attemptsWhileDisabled).map((request) => request.envelope.type);
    expect(replayed.sort()).toEqual(["print.completed", "test"]);
  });
});

describe("webhook health through a short receiver outage", () => {
  let api: TestApi;
  let endpoint: WebhookReceiver;

  beforeAll(async () => {
    // The default period before disabling; retries 1, 2, 4… s apart.
    api = await startTestApi({
      env: { ...LOCAL_DELIVERY, WEBHOOK_DISABLE_AFTER_SECONDS: "", WEBHOOK_RETRY_SCHEDULE: "1,2,4,8,8,8,8" },
    });
  });
  afterAll(async () => {
    await endpoint.stop();
    await api.close();
  });

  it("keeps the webhook enabled and delivers every event of 20 generations made while it answered 500 for 5 s", async () => {
    let outageEndsAt: number | undefined;
    const delivered = new Set<string>();
    endpoint = await new WebhookReceiver((request) => {
      outageEndsAt ??= Date.now() + 5_000;
      if (Date.now() < outageEndsAt) return { status: 500 };
      delivered.add(request.envelope.id);
      return { status: 200 };
    }).start();
    const hooks = webhooksOf(() => api);
    const { apiKey } = await api.createAccount({ credits: { f_images_print: 20 } });
    const { webhookId } = await hooks.subscribe(apiKey, { url: endpoint.url, events: ["print.completed"] });
    for (let index = 0; index < 20; index += 1) {
      const response = await hooks.send("POST", "/v1/image-generations", apiKey, fox);
      expect(response.status).toBe(201);
    }
    await until(() => delivered.size === 20, { timeoutMs: 25_000, what: "20 print.completed delivered" });
    expect(await readJson(await hooks.get(apiKey, webhookId))).toMatchObject({ disabled: false });
    expect(endpoint.received.some((request) => request.envelope.type !== "print.completed")).toBe(false);
  });
});

describe("webhook URLs inside the network", () => {
  let strict: TestApi;
  let permissive: TestApi;
  const endpoint = new WebhookReceiver();

  beforeAll(async () => {
    [strict, permissive] = await Promise.all([
      startTestApi({ env: { WEBHOOK_RELAY_INTERVAL_MS: "20" } }),
      startTestApi({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } }),
    ]);
    await endpoint.start();
  });
  afterAll(async () => {
    await Promise.all([strict.close(), permissive.close(), endpoint.stop()]);
  });

  it.each([
    ["http://example.com/hooks", "url: must use https"],
    ["https://127.0.0.1/hooks", "url: 127.0.0.1 is a loopback address, which cannot receive webhooks"],
    // What an internal host resolves to is not named: the caller learns only that it is internal.
    ["https://localhost/hooks", "url: localhost is an internal host, which cannot receive webhooks"],
    ["https://example.com:0/hooks", "url: port 0 cannot receive webhooks"],
    [
      "https://user:pass@example.com/hooks",
      "url: must not hold a user name or password; check each delivery's signature instead",
    ],
    [
      "https://token@example.com/hooks",
      "url: must not hold a user name or password; check each delivery's signature instead",
    ],
    ["https://[::1]/hooks", "url: ::1 is a loopback address, which cannot receive webhooks"],
    ["https://10.0.0.8/hooks", "url: 10.0.0.8 is a private address, which cannot receive webhooks"],
    ["https://192.168.1.20/hooks", "url: 192.168.1.20 is a private address, which cannot receive webhooks"],
    [
      "https://169.254.169.254/latest",
      "url: 169.254.169.254 is a cloud metadata address, which cannot receive webhooks",
    ],
    ["https://[fe80::1]/hooks", "url: fe80::1 is a link-local address, which cannot receive webhooks"],
    [
      "https://[::ffff:7f00:1]/hooks",
      "url: ::ffff:7f00:1 embeds 127.0.0.1, a loopback address, which cannot receive webhooks",
    ],
    ["https://239.1.2.3/hooks", "url: 239.1.2.3 is a multicast address, which cannot receive webhooks"],
    ["https://[::7f00:1]/hooks", /^url: ::7f00:1 embeds 127\.0\.0\.1, a loopback address/],
    ["https://[::127.0.0.1]/hooks", /^url: ::7f00:1 embeds 127\.0\.0\.1, a loopback address/],
    ["https://[::ffff:0:7f00:1]/hooks", /^url: ::ffff:0:7f00:1 embeds 127\.0\.0\.1, a loopback address/],
    ["https://[::ffff:10.1.2.3]/hooks", /^url: ::ffff:a01:203 embeds 10\.1\.2\.3, a private address/],
    ["https://[2002:7f00:1::]/hooks", /^url: 2002:7f00:1:: embeds 127\.0\.0\.1, a loopback address/],
    ["https://[2002:808:808::]/hooks", /^url: 2002:808:808:: is a 6to4 address/],
    ["https://[64:ff9b::7f00:1]/hooks", /^url: 64:ff9b::7f00:1 embeds 127\.0\.0\.1, a loopback address/],
    [
      "https://[64:ff9b::a9fe:a9fe]/hooks",
      /^url: 64:ff9b::a9fe:a9fe embeds 169\.254\.169\.254, a cloud metadata/,
    ],
    ["https://[64:ff9b:1::8.8.8.8]/hooks", /^url: 64:ff9b:1::808:808 is a local-use translation address/],
    [
      "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hooks",
      /^url: 2001:0:4136:e378:8000:63bf:80ff:fffe embeds 127\.0\.0\.1, a loopback address/,
    ],
    ["https://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/hooks", /is a Teredo address/],
    ["https://192.0.2.10/hooks", /^url: 192\.0\.2\.10 is a documentation address/],
    ["https://198.51.100.7/hooks", /^url: 198\.51\.100\.7 is a documentation address/],
    ["https://203.0.113.9/hooks", /^url: 203\.0\.113\.9 is a documentation address/],
    ["https://[2001:db8::1]/hooks", /^url: 2001:db8::1 is a documentation address/],
    ["https://[3fff::1]/hooks", /^url: 3fff::1 is a documentation address/],
    ["https://198.18.0.1/hooks", /^url: 198\.18\.0\.1 is a benchmarking address/],
    ["https://[2001:2::1]/hooks", /^url: 2001:2::1 is a benchmarking address/],
    ["https://100.64.0.1/hooks", /^url: 100\.64\.0\.1 is a shared \(carrier-grade NAT\) address/],
    ["https://192.0.0.9/hooks", /^url: 192\.0\.0\.9 is a protocol assignment address/],
    ["https://192.88.99.1/hooks", /^url: 192\.88\.99\.1 is a 6to4 relay address/],
    ["https://192.31.196.1/hooks", /^url: 192\.31\.196\.1 is a reserved AS112 address/],
    ["https://192.52.193.1/hooks", /^url: 192\.52\.193\.1 is a reserved AMT address/],
    ["https://192.175.48.1/hooks", /^url: 192\.175\.48\.1 is a reserved AS112 address/],
    ["https://255.255.255.255/hooks", /^url: 255\.255\.255\.255 is a broadcast address/],
    ["https://[100::1]/hooks", /^url: 100::1 is a discard-only address/],
    ["https://[2620:4f:8000::1]/hooks", /^url: 2620:4f:8000::1 is a reserved AS112 address/],
    ["https://[5f00::1]/hooks", /^url: 5f00::1 is a segment routing address/],
    ["https://[fec0::1]/hooks", /^url: fec0::1 is a site-local address/],
    ["https://no-such-host.invalid/hooks", "url: host no-such-host.invalid does not resolve"],
  ])("refuses %s", async (url, message) => {
    const { apiKey } = await strict.createAccount();
    const response = await webhooksOf(() => strict).send("POST", "/v1/api-keys/webhook/subscribe", apiKey, {
      url,
    });
    expect(response.status).toBe(400);
    expect((await readJson(response)).message).toEqual([
      typeof message === "string" ? message : expect.stringMatching(message),
    ]);
  });

  it("accepts private addresses where configured", async () => {
    const { apiKey } = await permissive.createAccount();
    await webhooksOf(() => permissive).subscribe(apiKey, { url: "https://127.0.0.1/hooks" });
  });

  it("refuses them again at delivery, when the address changed after subscription", async () => {
    const hooks = webhooksOf(() => strict);
    const { apiKey, accountId, apiKeyId } = await strict.createAccount();
    // As if DNS had pointed these hosts elsewhere when they were subscribed.
    const port = new URL(endpoint.url).port;
    const prisma = strict.resources.database.prisma;
    const [byName, byAddress] = await Promise.all(
      [`https://localhost:${port}/hooks`, `https://127.0.0.1:${port}/hooks`].map((url) =>
        prisma.webhook.create({
          data: {
            accountId,
            apiKeyId,
            url,
            events: ["test"],
            secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
          },
        }),
      ),
    );
    for (const webhook of [byName, byAddress]) await hooks.test(apiKey, webhook?.id as string);
    for (const [webhook, refused] of [
      [byName, /^refused: localhost is an internal host$/],
      [byAddress, /^refused: 127\.0\.0\.1 is a loopback address$/],
    ] as const) {
      await until(async () => (await hooks.attempts(apiKey, webhook?.id as string)).length >= 1);
      expect((await hooks.attempts(apiKey, webhook?.id as string))[0]?.error).toMatch(refused);
    }
    expect(endpoint.received).toHaveLength(0);
  });
});

describe("webhook delivery across crashes", () => {
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((started) => started.stop()));
  });

  it("delivers an event committed just before the API process was killed, once it restarts", async () => {
    const endpoint = await new WebhookReceiver().start();
    receivers.push(endpoint);
    const database = await createTestDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), "imagehub-webhook-crash-"));
    const port = await freePort();
    const env = {
      DATABASE_URL: database.url,
      PORT: String(port),
      DEMO_ACCOUNT: "true",
      CATALOGUE_SEED_COUNT: "0",
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: uniqueName("crash"),
      DATA_DIR: dataDir,
      ...LOCAL_DELIVERY,
    };
    try {
      // The first process relays only at start: what is committed after stays in the outbox.
      const first = start({ ...env, WEBHOOK_RELAY_INTERVAL_MS: "60000" });
      const apiKey = await demoKey(first);
      const base = `http://127.0.0.1:${port}`;
      const post = (path: string, body?: unknown) =>
        fetch(`${base}${path}`, {
          method: "POST",
          headers: { "api-key": apiKey, ...(body !== undefined && { "content-type": "application/json" }) },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
      const { webhookId } = await readJson(
        await post("/v1/api-keys/webhook/subscribe", { url: endpoint.url }),
      );
      const { eventId } = await readJson(await post(`/v1/api-keys/webhook/${webhookId}/test`));
      first.child.kill("SIGKILL");
      await once(first.child, "exit");
      expect(endpoint.received).toHaveLength(0);

      const second = start(env);
      try {
        const [request] = await endpoint.waitFor(1);
        expect(request?.envelope).toMatchObject({ id: eventId, type: "test" });
        // The relay runs before the HTTP server listens: the banner tells when requests are taken.
        await demoKey(second);
        const { eventId: marker } = await readJson(await post(`/v1/api-keys/webhook/${webhookId}/test`));
        await endpoint.waitFor(2);
        expect(endpoint.received.map((received) => received.envelope.id)).toEqual([eventId, marker]);
      } finally {
        await stop(second);
      }
    } finally {
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("loses nothing when Redis restarts, its data gone, in the middle of deliveries", async () => {
    const redisPort = await freePort();
    let redis = await startRedisServer(redisPort);
    // The first attempt is told to come back in 2 s: a delayed job that only Redis holds.
    const endpoint = await new WebhookReceiver((_, index) =>
      index === 0 ? { status: 503, headers: { "retry-after": "2" } } : { status: 200 },
    ).start();
    receivers.push(endpoint);
    const api = await startTestApi({
      env: { ...LOCAL_DELIVERY, REDIS_URL: `redis://127.0.0.1:${redisPort}`, WEBHOOK_SWEEP_SECONDS: "1" },
    });
    try {
      const hooks = webhooksOf(() => api);
      const { apiKey, accountId } = await api.createAccount();
      const { webhookId } = await hooks.subscribe(apiKey, { url: endpoint.url });
      const delayed = await hooks.test(apiKey, webhookId);
      await endpoint.waitFor(1);

      await killRedisServer(redis);
      // Committed while Redis is away: the relay cannot queue it.
      const whileDown = await hooks.test(apiKey, webhookId);
      // The relay has written its delivery to PostgreSQL and failed to queue it.
      const outbox = api.resources.database.prisma.outboxEvent;
      await until(async () => (await outbox.count({ where: { accountId, relayedAt: null } })) === 0);
      redis = await startRedisServer(redisPort);

      await endpoint.waitFor(3);
      expect(new Set(endpoint.received.map((request) => request.envelope.id))).toEqual(
        new Set([delayed, whileDown]),
      );
    } finally {
      await api.close();
      await killRedisServer(redis);
    }
  });

  it("makes a retry that fell due while Redis was away as soon as Redis is back, not at the next sweep", async () => {
    const redisPort = await freePort();
    let redis = await startRedisServer(redisPort);
    const endpoint = await new WebhookReceiver((_, index) =>
      index === 0 ? { status: 503, headers: { "retry-after": "1" } } : { status: 200 },
    ).start();
    receivers.push(endpoint);
    // The sweep and the schedules' refresh an hour away: only the recovery can queue the retry again.
    const api = await startTestApi({
      env: {
        ...LOCAL_DELIVERY,
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        WEBHOOK_SWEEP_SECONDS: "3600",
        JOB_SCHEDULE_REFRESH_MS: "3600000",
      },
    });
    try {
      const hooks = webhooksOf(() => api);
      const { apiKey } = await api.createAccount();
      const { webhookId } = await hooks.subscribe(apiKey, { url: endpoint.url });
      const eventId = await hooks.test(apiKey, webhookId);
      const webhooksQueue = api.app
        .get(JobRepository)
        .allQueues()
        .find((queue) => queue.name === "webhooks");
      await until(async () => (await webhooksQueue?.getJobCounts("delayed"))?.delayed === 1, {
        what: "the retry's delayed job",
      });
      // That job goes with Redis' data; its time comes while Redis is away.
      await killRedisServer(redis);
      const deliveries = api.resources.database.prisma.webhookDelivery;
      await until(
        async () => (await deliveries.count({ where: { eventId, nextAttemptAt: { lt: new Date() } } })) === 1,
        { what: "the retry to fall due" },
      );
      redis = await startRedisServer(redisPort);

      await endpoint.waitFor(2);
      expect(endpoint.received.map((request) => request.envelope.id)).toEqual([eventId, eventId]);
    } finally {
      await api.close();
      await killRedisServer(redis);
    }
  });
});
