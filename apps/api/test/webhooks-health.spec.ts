import { describe, expect, it } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { until } from "../../../tests/support/until.js";
import { type ReceivedWebhook } from "../../../tests/support/webhook-receiver.js";
import { fox, localDeliveryApi, verify } from "../../../tests/support/webhooks-api.js";

describe("webhook health", () => {
  const { api, hooks, receiver } = localDeliveryApi();

  it("disables the webhook on 410 Gone, until it is enabled again", async () => {
    const endpoint = await receiver((_, index) => ({ status: index === 0 ? 410 : 200 }));
    const { apiKey, accountId } = await api().createAccount();
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
    const outbox = api().resources.database.prisma.outboxEvent;
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
    const { apiKey, accountId } = await api().createAccount({ credits: { f_images_print: 5 } });
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
    const outbox = api().resources.database.prisma.outboxEvent;
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
  // The default period before disabling; retries 1, 2, 4… s apart.
  const { api, hooks, receiver } = localDeliveryApi({
    WEBHOOK_DISABLE_AFTER_SECONDS: "",
    WEBHOOK_RETRY_SCHEDULE: "1,2,4,8,8,8,8",
  });

  it("keeps the webhook enabled and delivers every event of 20 generations made while it answered 500 for 5 s", async () => {
    let outageEndsAt: number | undefined;
    const delivered = new Set<string>();
    const endpoint = await receiver((request) => {
      outageEndsAt ??= Date.now() + 5_000;
      if (Date.now() < outageEndsAt) return { status: 500 };
      delivered.add(request.envelope.id);
      return { status: 200 };
    });
    const { apiKey } = await api().createAccount({ credits: { f_images_print: 20 } });
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
