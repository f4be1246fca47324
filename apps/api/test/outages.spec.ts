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
import { IdempotencyService } from "../src/idempotency/idempotency.service.js";
import { JobRepository } from "../src/jobs/job.repository.js";

const fox = { name: "Fox", prompt: "a red fox in the snow", mode: "simple" };
/** Far beyond every test's deadline: whatever recovers in a test is not the periodic sweep or refresh. */
const SWEEPS_AN_HOUR_AWAY = {
  GENERATION_SWEEP_SECONDS: "3600",
  WEBHOOK_SWEEP_SECONDS: "3600",
  JOB_SCHEDULE_REFRESH_MS: "3600000",
};

function generationsQueue(api: TestApi) {
  const queue = api.app
    .get(JobRepository)
    .allQueues()
    .find((candidate) => candidate.name === "generations");
  if (!queue) throw new Error("no generations queue");
  return queue;
}

const statusOf = async (api: TestApi, apiKey: string, id: string) =>
  (await readJson(await api.request(`/v1/image-generations/${id}`, { apiKey }))).status;

function untilDone(api: TestApi, apiKey: string, id: string) {
  return until(async () => (await statusOf(api, apiKey, id)) === 3, {
    timeoutMs: 30_000,
    what: "the generation to be Done",
  });
}

/** The API on a database of its own reached through a proxy, which can play PostgreSQL going away. */
async function startBehindProxy(env: NodeJS.ProcessEnv) {
  const target = new URL(TEST_POSTGRES_URL);
  const proxy = await new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) }).start();
  const database = await createTestDatabase();
  const throughProxy = new URL(database.url);
  throughProxy.port = String(proxy.address.port);
  const api = await startTestApi({ env: { ...env, DATABASE_URL: throughProxy.toString() } });
  return { api, proxy, database };
}

describe("the API while PostgreSQL is away", () => {
  let api: TestApi;
  let proxy: TcpProxy;
  let database: TestDatabase;

  beforeAll(async () => {
    ({ api, proxy, database } = await startBehindProxy({ ROLE: "api", API_KEY_CACHE_SECONDS: "0" }));
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

describe("the workers while PostgreSQL is away", () => {
  let api: TestApi;
  let proxy: TcpProxy;
  let database: TestDatabase;

  beforeAll(async () => {
    ({ api, proxy, database } = await startBehindProxy({
      // Slow enough to be cut in the middle of its images.
      PROCEDURAL_IMAGE_DELAY_MS: "500",
      ...SWEEPS_AN_HOUR_AWAY,
    }));
  });
  afterAll(async () => {
    await proxy.restore();
    await api.close();
    await database.drop();
  });

  it("goes on with a generation whose job ran out of attempts during the outage as soon as the database is back", async () => {
    const { apiKey } = await api.createAccount();
    const created = await readJson(
      await api.request("/v1/image-generations", { apiKey, method: "POST", json: fox }),
    );
    await until(async () => (await statusOf(api, apiKey, created.id)) === 2, {
      what: "the generation to be in a worker's hands",
    });
    await proxy.cut();
    await until(async () => ((await generationsQueue(api).getJobCounts("failed")).failed ?? 0) >= 1, {
      timeoutMs: 30_000,
      what: "the generation's job to run out of attempts",
    });
    await proxy.restore();
    await untilDone(api, apiKey, created.id);
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
      env: {
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        HTTP_REQUEST_TIMEOUT_MS: "1000",
        ...SWEEPS_AN_HOUR_AWAY,
      },
    });
  });
  afterAll(async () => {
    await api.close();
    await killRedisServer(redis);
  });

  it("commits a create at once and answers it; queued as soon as Redis is back, schedules registered again", async () => {
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

    // Restarted empty: neither the generation's job nor any schedule is in Redis any more, and the sweep and
    // the schedules' refresh are an hour away.
    redis = await startRedisServer(redisPort);
    await untilDone(api, apiKey, created.id);
    const schedules = await generationsQueue(api).getJobSchedulers();
    expect(schedules.map((schedule) => schedule.key)).toContain("generations.sweep");
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
