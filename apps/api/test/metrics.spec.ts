import type { INestApplicationContext } from "@nestjs/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { WebhookReceiver } from "../../../tests/support/webhook-receiver.js";
import { createWorkerContext, type OpenResources, openResources } from "../src/app.factory.js";
import { createLogger } from "../src/common/logger.js";
import { MetricsServer } from "../src/metrics/metrics-server.js";

const METRICS_TOKEN = "metrics-token-for-tests";

/** The value of the first sample of `name` whose labels include `labels`; undefined when there is none. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = match[2] ?? "";
    if (Object.entries(labels).every(([label, value]) => present.includes(`${label}="${value}"`))) {
      return Number(match[3]);
    }
  }
  return undefined;
}

describe("metrics", () => {
  let api: TestApi;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    api = await startTestApi({
      env: { METRICS_TOKEN, WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" },
    });
  });
  afterAll(async () => {
    await api.close();
    await receiver.stop();
  });

  const scrape = async () => {
    const response = await api.request("/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };

  it("refuses /metrics without the token, or with another, in the error body", async () => {
    const without = await api.request("/metrics");
    expect(without.status).toBe(401);
    expect(await readJson(without)).toEqual({
      statusCode: 401,
      error: "Unauthorized",
      message: ["metrics need Authorization: Bearer <METRICS_TOKEN>"],
    });
    const wrong = await api.request("/metrics", {
      headers: { authorization: "Bearer metrics-token-for-test" },
    });
    expect(wrong.status).toBe(401);
  });

  it("times requests by route pattern, method and status", async () => {
    const { apiKey } = await api.createAccount();
    await api.request("/v1/credit", { apiKey });
    await api.request("/v1/image-generations/01a208e2-48cb-7457-98d4-8af0668143d9", { apiKey });
    const text = await scrape();
    const credit = { method: "GET", route: "/v1/credit", status: "200" };
    expect(sample(text, "imagehub_http_request_duration_seconds_count", credit)).toBe(1);
    const notFound = { route: "/v1/image-generations/:imageGenerationId", status: "404" };
    expect(sample(text, "imagehub_http_request_duration_seconds_count", notFound)).toBe(1);
  });

  it("tells searches, credits spent, generations by engine, jobs by queue and queue depths", async () => {
    const { apiKey } = await api.createAccount();
    const search = () =>
      api.request("/v1/images/search", { apiKey, method: "POST", json: { search: "fox" } });
    await search();
    await search();
    const created = await readJson(
      await api.request("/v1/image-generations", {
        apiKey,
        method: "POST",
        json: { name: "Fox", prompt: "a red fox in the snow", mode: "simple" },
      }),
    );
    await until(
      async () =>
        (await readJson(await api.request(`/v1/image-generations/${created.id}`, { apiKey }))).status === 3,
      { what: "the generation to be Done" },
    );
    await until(
      async () =>
        sample(await scrape(), "imagehub_job_duration_seconds_count", {
          queue: "generations",
          job: "generations.run",
          outcome: "completed",
        }) === 1,
      { what: "the generation job's duration" },
    );
    const text = await scrape();
    expect(sample(text, "imagehub_search_duration_seconds_count", { cached: "false" })).toBe(1);
    expect(sample(text, "imagehub_search_duration_seconds_count", { cached: "true" })).toBe(1);
    expect(sample(text, "imagehub_credits_spent_total", { bucket: "f_images_print" })).toBe(1);
    const done = { engine: "procedural", outcome: "done" };
    expect(sample(text, "imagehub_generation_duration_seconds_count", done)).toBe(1);
    expect(sample(text, "imagehub_queue_jobs", { queue: "generations", state: "waiting" })).toBe(0);
    expect(sample(text, "imagehub_queue_jobs", { queue: "credits", state: "delayed" })).toBeGreaterThan(0);
  });

  it("counts webhook deliveries by outcome, with their lag", async () => {
    const { apiKey } = await api.createAccount();
    const subscribed = await readJson(
      await api.request("/v1/api-keys/webhook/subscribe", {
        apiKey,
        method: "POST",
        json: { url: receiver.url },
      }),
    );
    await api.request(`/v1/api-keys/webhook/${subscribed.webhookId}/test`, { apiKey, method: "POST" });
    await receiver.waitFor(1);
    await until(
      async () => sample(await scrape(), "imagehub_webhook_deliveries_total", { outcome: "delivered" }) === 1,
      { what: "the delivery to be counted" },
    );
    expect(sample(await scrape(), "imagehub_webhook_delivery_lag_seconds_count")).toBe(1);
  });
});

describe("metrics of a worker process", () => {
  let api: TestApi;
  let worker: { context: INestApplicationContext; resources: OpenResources };

  beforeAll(async () => {
    api = await startTestApi({ env: { ROLE: "api" } });
    const config = { ...api.resources.config, role: "worker" as const };
    const resources = await openResources(
      { ...config, metrics: { ...config.metrics, port: 0 } },
      createLogger("silent"),
    );
    worker = { context: await createWorkerContext(resources), resources };
  });
  afterAll(async () => {
    await worker.context.close();
    await worker.resources.close();
    await api.close();
  });

  it("are served on a port of their own, and not by an API process without a token", async () => {
    await worker.context.init();
    const port = worker.context.get(MetricsServer).port();
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.status).toBe(200);
    expect(sample(await response.text(), "imagehub_queue_jobs", { queue: "webhooks", state: "failed" })).toBe(
      0,
    );
    expect((await api.request("/metrics")).status).toBe(404);
  });
});
