import type { ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_POSTGRES_URL } from "../../../tests/support/environment.js";
import { readJson } from "../../../tests/support/json.js";
import { killRedisServer, startRedisServer } from "../../../tests/support/redis-server.js";
import { freePort } from "../../../tests/support/start-command.mjs";
import { TcpProxy } from "../../../tests/support/tcp-proxy.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { until } from "../../../tests/support/until.js";
import { GenerationRunnerService } from "../src/generations/generation-runner.service.js";
import { IdempotencyService } from "../src/idempotency/idempotency.service.js";

const fox = { name: "Fox", prompt: "a red fox in the snow", mode: "simple" };

describe("the API while PostgreSQL is away", () => {
  let api: TestApi;
  let proxy: TcpProxy;
  let database: TestDatabase;

  beforeAll(async () => {
    const target = new URL(TEST_POSTGRES_URL);
    proxy = await new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) }).start();
    database = await createTestDatabase();
    const throughProxy = new URL(database.url);
    throughProxy.port = String(proxy.address.port);
    api = await startTestApi({
      env: { ROLE: "api", DATABASE_URL: throughProxy.toString(), API_KEY_CACHE_SECONDS: "0" },
    });
  });
  afterAll(async () => {
    await proxy.restore();
    await api.close();
    await database.drop();
  });

  it("answers 503 in the error body with Retry-After, never 500, and serves again once it is back", async () => {
    const { apiKey } = await api.createAccount();
    await proxy.cut();
    for (const [method, path, json] of [
      ["GET", "/v1/credit", undefined],
      ["POST", "/v1/image-generations", fox],
    ] as const) {
      const response = await api.request(path, { apiKey, method, ...(json && { json }) });
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(await readJson(response)).toEqual({
        statusCode: 503,
        error: "Service Unavailable",
        message: ["the database is unavailable; retry later"],
      });
    }
    await proxy.restore();
    await until(async () => (await api.request("/v1/credit", { apiKey })).status === 200);
  });

  it("frees an idempotency key whose request failed with the database once it is back, not after the key counts as abandoned (60 s)", async () => {
    const { accountId } = await api.createAccount();
    const keys = api.app.get(IdempotencyService);
    const scope = { accountId, key: "fox-during-the-outage" };
    const request = { method: "POST", url: "/v1/image-generations", body: fox };
    expect(await keys.start(scope, request)).toEqual({ kind: "run" });
    await proxy.cut();
    // The request fails for want of the database, which then cannot free the key either.
    await keys.failed(scope, new Error("the database is unavailable"));
    await proxy.restore();
    const isFree = () =>
      keys.start(scope, request).then(
        () => true,
        () => false,
      );
    await until(isFree, { timeoutMs: 20_000, what: "the key to be freed" });
  });
});

describe("the API while Redis is away", () => {
  let api: TestApi;
  let redis: ChildProcess;
  let redisPort: number;

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedisServer(redisPort);
    api = await startTestApi({
      env: { REDIS_URL: `redis://127.0.0.1:${redisPort}`, HTTP_REQUEST_TIMEOUT_MS: "1000" },
    });
  });
  afterAll(async () => {
    await api.close();
    await killRedisServer(redis);
  });

  it("commits a create at once and answers it; the sweep queues it once Redis is back", async () => {
    const { apiKey } = await api.createAccount();
    await killRedisServer(redis);
    const response = await api.request("/v1/image-generations", {
      apiKey,
      method: "POST",
      json: fox,
      signal: AbortSignal.timeout(5_000),
    });
    expect(response.status).toBe(201);
    const created = await readJson(response);
    expect(created.status).toBe(1);

    redis = await startRedisServer(redisPort);
    // As the sweep finds it once it has gone unadvanced long enough.
    await api.resources.database.prisma
      .$executeRaw`UPDATE generations SET updated_at = now() - interval '1 minute' WHERE id = ${created.id}::uuid`;
    await until(() => api.resources.redis.status === "ready");
    await api.app.get(GenerationRunnerService).sweep();
    await until(
      async () =>
        (await readJson(await api.request(`/v1/image-generations/${created.id}`, { apiKey }))).status === 3,
      { timeoutMs: 20_000, what: "the generation to be Done" },
    );
  });

  it("answers 408 to a request whose body trickles in past HTTP_REQUEST_TIMEOUT_MS", async () => {
    const { port } = new URL(api.baseUrl);
    const socket = connect(Number(port), "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk));
    socket.write(
      "POST /v1/images/search HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{",
    );
    const trickle = setInterval(() => socket.write(" "), 200);
    try {
      await until(() => answer.length > 0, { timeoutMs: 5_000, what: "an answer to the trickling request" });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });
});
