import { once } from "node:events";
import { type AddressInfo, createServer } from "node:net";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { DependencyChecksRepository } from "../src/common/dependency-checks.repository.js";

describe("GET /health", () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it("reports the database and Redis up, without a key", async () => {
    const response = await api.request("/health");
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({ status: "ok", checks: { database: "ok", redis: "ok" } });
  });

  it("counts a Redis that accepts connections but never answers as down, within its time limit", async () => {
    const silent = createServer(() => {}).listen(0, "127.0.0.1");
    await once(silent, "listening");
    const { port } = silent.address() as AddressInfo;
    const redis = new Redis(port, "127.0.0.1", { maxRetriesPerRequest: null });
    try {
      const health = new DependencyChecksRepository(api.resources.database.prisma, redis);
      expect(await health.isRedisUp()).toBe(false);
      expect(await health.isDatabaseUp()).toBe(true);
    } finally {
      redis.disconnect();
      silent.close();
    }
  });

  it("answers liveness without checking dependencies", async () => {
    api.resources.redis.disconnect();
    const response = await api.request("/health/live");
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({ status: "ok" });
  });

  it("answers 503 naming what is down", async () => {
    api.resources.redis.disconnect();
    const response = await api.request("/health");
    expect(response.status).toBe(503);
    expect(await readJson(response)).toEqual({
      statusCode: 503,
      error: "Service Unavailable",
      message: ["redis is down"],
    });
  });
});
