import { Webhook as StandardWebhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { readJson } from "./json.js";
import { startTestApi, type TestApi } from "./test-api.js";
import { type ReceivedWebhook, WebhookReceiver } from "./webhook-receiver.js";

/** The events a generation can send, every one a webhook may choose. */
export const GENERATION_EVENTS = [
  "print.created",
  "print.active",
  "print.progress",
  "print.completed",
  "print.failed",
];

/** Receivers on 127.0.0.1 over http, retries within a second, failures noticed quickly. */
export const LOCAL_DELIVERY = {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_RETRY_SCHEDULE: "0.1,0.2,0.3,0.4,0.5,0.5,0.5",
  WEBHOOK_TIMEOUT_SECONDS: "1",
  WEBHOOK_RELAY_INTERVAL_MS: "20",
  WEBHOOK_DISABLE_AFTER_SECONDS: "1",
};

/** A generation request whose events the specs follow. */
export const fox = { name: "Fox", prompt: "a red fox in the snow", mode: "simple" };

/** The webhook routes of /v1, called with an account's key on the API `api` returns. */
export function webhooksOf(api: () => TestApi) {
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

/** The envelope of a received delivery, checked with the webhook's secret as a receiver would. */
export function verify(secret: string, received: ReceivedWebhook) {
  return new StandardWebhook(secret).verify(received.body, {
    "webhook-id": received.headers["webhook-id"] as string,
    "webhook-timestamp": received.headers["webhook-timestamp"] as string,
    "webhook-signature": received.headers["webhook-signature"] as string,
  });
}

/** Starts receivers for the test that asks, and stops them after each test of the calling suite. */
export function receiversStoppedAfterEach() {
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((started) => started.stop()));
  });
  return async (responder?: ConstructorParameters<typeof WebhookReceiver>[0]) => {
    const started = await new WebhookReceiver(responder).start();
    receivers.push(started);
    return started;
  };
}

/**
 * For a describe block: an API delivering to local receivers (`env` changing settings), started before its
 * tests and closed after, its webhook routes, and receivers each stopped after its test.
 */
export function localDeliveryApi(env: Record<string, string> = {}) {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ env: { ...LOCAL_DELIVERY, ...env } });
  });
  afterAll(() => api.close());
  return { api: () => api, hooks: webhooksOf(() => api), receiver: receiversStoppedAfterEach() };
}
