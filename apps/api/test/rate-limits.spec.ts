import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { promisify } from "node:util";
import type { NestFastifyApplication } from "@nestjs/platform-fastify";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL } from "../../../tests/support/environment.js";
import { readJson } from "../../../tests/support/json.js";
import { freePort } from "../../../tests/support/start-command.mjs";
import { TcpProxy } from "../../../tests/support/tcp-proxy.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { AccountsService } from "../src/accounts/accounts.service.js";
import { createHttpApplication, type OpenResources, openResources } from "../src/app.factory.js";
import { createLogger } from "../src/common/logger.js";

const ADMIN_CLI = join(import.meta.dirname, "../dist/admin/admin.cli.js");

/** Runs the built admin CLI (what `npm run admin --` runs) against the test API's database. */
async function admin(api: TestApi, ...args: string[]): Promise<string> {
  const env = { PATH: process.env.PATH ?? "", DATABASE_URL: api.database.url };
  const { stdout } = await promisify(execFile)(process.execPath, [ADMIN_CLI, ...args], { env });
  return stdout;
}

const fox = { name: "Fox", prompt: "a red fox in the snow", mode: "simple" };

describe("rate limits", () => {
  let api: TestApi;
  let second: { app: NestFastifyApplication; resources: OpenResources; baseUrl: string };

  beforeAll(async () => {
    api = await startTestApi({
      env: {
        ROLE: "api",
        RATE_LIMIT_GENERAL: "3",
        RATE_LIMIT_SEARCH: "120",
        RATE_LIMIT_DISPLAY: "2",
        MAX_ACTIVE_GENERATIONS: "100",
        API_KEY_CACHE_SECONDS: "0",
      },
    });
    // A second API process: its own Nest application and Redis connections, the same database and Redis.
    const resources = await openResources(api.resources.config, createLogger("silent"));
    const app = await createHttpApplication(resources);
    await app.listen({ host: "127.0.0.1", port: 0 });
    second = { app, resources, baseUrl: (await app.getUrl()).replace("[::1]", "127.0.0.1") };
  });
  afterAll(async () => {
    await second.app.close();
    await second.resources.close();
    await api.close();
  });

  it("answers 429 in the error body with Retry-After and RateLimit headers once an account's budget is spent", async () => {
    const { apiKey } = await api.createAccount();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await api.request("/v1/credit", { apiKey });
      statuses.push(response.status);
      expect(response.headers.get("ratelimit-limit")).toBe("3");
      expect(response.headers.get("ratelimit-remaining")).toBe(String(2 - i));
    }
    expect(statuses).toEqual([200, 200, 200]);

    const refused = await api.request("/v1/credit", { apiKey });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("ratelimit-reset")).toBe(refused.headers.get("retry-after"));
    expect(refused.headers.get("ratelimit-policy")).toBe("3;w=60");
    const body = await readJson(refused);
    expect(body).toEqual({ statusCode: 429, error: "Too Many Requests", message: [expect.any(String)] });
    expect(body.message[0]).toContain("3 requests per 60 s for this account");
  });

  it("counts every key of an account against its budget: keys minted after a 429 are refused too", async () => {
    const { apiKey, accountId } = await api.createAccount({ email: "minter@example.test" });
    for (let i = 0; i < 3; i++) expect((await api.request("/v1/credit", { apiKey })).status).toBe(200);
    expect((await api.request("/v1/credit", { apiKey })).status).toBe(429);
    const accounts = api.app.get(AccountsService);
    for (let i = 0; i < 3; i++) {
      const { key } = await accounts.createApiKey({
        email: "minter@example.test",
        name: `new-${i}`,
        actor: "test",
      });
      expect((await api.request("/v1/credit", { apiKey: key })).status).toBe(429);
    }
    expect(await api.resources.database.prisma.apiKey.count({ where: { accountId } })).toBe(4);
  });

  it("shares one account's budget between API processes and leaves other accounts theirs", async () => {
    const { apiKey } = await api.createAccount();
    const other = await api.createAccount();
    const onSecond = (key: string) => fetch(`${second.baseUrl}/v1/credit`, { headers: { "api-key": key } });
    expect((await api.request("/v1/credit", { apiKey })).status).toBe(200);
    expect((await onSecond(apiKey)).status).toBe(200);
    expect((await api.request("/v1/credit", { apiKey })).status).toBe(200);
    expect((await onSecond(apiKey)).status).toBe(429);
    expect((await api.request("/v1/credit", { apiKey })).status).toBe(429);

    expect((await onSecond(other.apiKey)).status).toBe(200);
    expect((await api.request("/v1/credit", { apiKey: other.apiKey })).status).toBe(200);
  });

  it("counts the search budget apart from the general one", async () => {
    const { apiKey } = await api.createAccount();
    for (let i = 0; i < 3; i++) expect((await api.request("/v1/credit", { apiKey })).status).toBe(200);
    const search = await api.request("/v1/images/search", {
      apiKey,
      method: "POST",
      json: { search: "fox" },
    });
    expect(search.status).toBe(200);
    expect(search.headers.get("ratelimit-limit")).toBe("120");
  });

  it("counts requests without a key per client address", async () => {
    const display = () => api.request("/v1/images/preview/00000000-0000-7000-8000-000000000000.jpg");
    expect((await display()).status).toBe(404);
    expect((await display()).status).toBe(404);
    const refused = await display();
    expect(refused.status).toBe(429);
    expect((await readJson(refused)).message[0]).toContain("image displays per 60 s from this address");
  });

  it("never limits the health checks", async () => {
    for (let i = 0; i < 5; i++) {
      const response = await api.request("/health/live");
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-limit")).toBeNull();
    }
  });

  it("applies an account's own budget set with the admin CLI, and its default again once cleared", async () => {
    const { apiKey } = await api.createAccount({ email: "roomy@example.test" });
    await admin(api, "limits", "set", "--email", "roomy@example.test", "--general", "5");
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await api.request("/v1/credit", { apiKey })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);

    const shown = JSON.parse(await admin(api, "limits", "show", "--email", "roomy@example.test", "--json"));
    expect(shown).toContainEqual({ limit: "general", value: 5, source: "account", per: "60 s" });
    expect(shown).toContainEqual({ limit: "search", value: 120, source: "default", per: "60 s" });

    await admin(api, "limits", "set", "--email", "roomy@example.test", "--general", "default");
    const refused = await api.request("/v1/credit", { apiKey });
    expect(refused.headers.get("ratelimit-limit")).toBe("3");
    const audit = await api.resources.database.prisma.auditLog.findMany({
      where: { account: { email: "roomy@example.test" }, action: "account.limits_changed" },
    });
    expect(audit).toHaveLength(2);
  });

  it("refuses a create beyond the account's generations Pending or Processing, until its cap is raised", async () => {
    const { apiKey } = await api.createAccount({
      email: "busy@example.test",
      credits: { f_images: 10, f_images_print: 10 },
    });
    await admin(api, "limits", "set", "--email", "busy@example.test", "--active-generations", "2");
    const create = () => api.request("/v1/image-generations", { apiKey, method: "POST", json: fox });
    // This API runs no worker: the generations stay Pending.
    expect((await create()).status).toBe(201);
    expect((await create()).status).toBe(201);
    const refused = await create();
    expect(refused.status).toBe(409);
    expect((await readJson(refused)).message).toEqual([
      "this account already has 2 generations Pending or Processing, the most it may have at once; create again when one has finished",
    ]);

    await admin(api, "limits", "set", "--email", "busy@example.test", "--active-generations", "3");
    expect((await create()).status).toBe(201);
  });

  it("accepts exactly the cap of 20 creates sent at once to two API processes, and charges nothing for the others", async () => {
    const { apiKey, accountId } = await api.createAccount({
      email: "eager@example.test",
      credits: { f_images_print: 50 },
    });
    await admin(api, "limits", "set", "--email", "eager@example.test", "--active-generations", "3");
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        fetch(`${index % 2 === 0 ? api.baseUrl : second.baseUrl}/v1/image-generations`, {
          method: "POST",
          headers: { "api-key": apiKey, "content-type": "application/json" },
          body: JSON.stringify(fox),
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(3);
    expect(statuses.filter((status) => status === 409)).toHaveLength(17);
    for (const refused of answers.filter((answer) => answer.status === 409)) {
      expect(await readJson(refused)).toEqual({
        statusCode: 409,
        error: "Conflict",
        message: [
          "this account already has 3 generations Pending or Processing, the most it may have at once; create again when one has finished",
        ],
      });
    }
    const { prisma } = api.resources.database;
    expect(await prisma.generation.count({ where: { accountId } })).toBe(3);
    const bucket = await prisma.creditBucket.findUniqueOrThrow({
      where: { accountId_type: { accountId, type: "f_images_print" } },
    });
    expect(bucket.balance).toBe(47);
  });
});

describe("rate limits while Redis is away", () => {
  let redis: ChildProcess;
  let api: TestApi;
  const logged = new PassThrough();
  const lines: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", ""], {
      stdio: "ignore",
    });
    await until(async () => {
      const [code] = await once(
        spawn("redis-cli", ["-p", String(port), "ping"], { stdio: "ignore" }),
        "exit",
      );
      return code === 0;
    });
    logged.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
    api = await startTestApi({
      env: {
        ROLE: "api",
        REDIS_URL: `redis://127.0.0.1:${port}`,
        LOG_LEVEL: "warn",
        RATE_LIMIT_GENERAL: "1",
      },
      logDestination: logged,
    });
  });
  afterAll(async () => {
    await api.close();
    redis.kill();
  });

  it("lets requests through with a logged warning rather than refusing them", async () => {
    const { apiKey } = await api.createAccount();
    const counted = await api.request("/v1/credit", { apiKey });
    expect(counted.status).toBe(200);
    expect(counted.headers.get("ratelimit-remaining")).toBe("0");

    // Each of these would be over the budget of 1, were it counted.
    redis.kill();
    await once(redis, "exit");
    for (let i = 0; i < 3; i++) {
      const response = await api.request("/v1/credit", { apiKey });
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-limit")).toBeNull();
    }
    const warnings = lines.map((line) => JSON.parse(line)).filter((entry) => entry.context === "RateLimits");
    expect(warnings).toHaveLength(1);
    expect(warnings[0].msg).toMatch(/^rate limits not applied, Redis did not answer/);
  });
});

describe("the cap on running generations under a burst of one account's creates", () => {
  let api: TestApi;
  // The pool must not be the scarce thing for the other account: room for one waiting create and its read.
  const POOL_SIZE = 2;

  beforeAll(async () => {
    api = await startTestApi({
      env: {
        ROLE: "api",
        DATABASE_POOL_SIZE: String(POOL_SIZE),
        RATE_LIMIT_GENERATION_CREATE: "0",
        MAX_ACTIVE_GENERATIONS: "100",
      },
    });
  });
  afterAll(async () => {
    await api.close();
  });

  it("leaves the database pool to other accounts while the creates wait for the account's turn", async () => {
    const busy = await api.createAccount({ email: "burst@example.test", credits: { f_images_print: 10 } });
    const { apiKey: readerKey } = await api.createAccount({ email: "bystander@example.test" });
    // Their keys are read from the database once, before the pool is busy.
    for (const apiKey of [busy.apiKey, readerKey]) {
      expect((await api.request("/v1/credit", { apiKey })).status).toBe(200);
    }
    // A create in another API process holds the account's row lock for as long as this test needs.
    const otherProcess = new pg.Client({ connectionString: api.database.url });
    const observer = new pg.Client({ connectionString: api.database.url });
    await Promise.all([otherProcess.connect(), observer.connect()]);
    try {
      await otherProcess.query("BEGIN");
      await otherProcess.query("SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE", [busy.accountId]);
      const creates = Array.from({ length: POOL_SIZE * 2 }, () =>
        api.request("/v1/image-generations", { apiKey: busy.apiKey, method: "POST", json: fox }),
      );
      await until(
        async () => {
          const { rows } = await observer.query(
            "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          );
          return rows[0].waiting > 0;
        },
        { what: "a create waiting for the account's row lock" },
      );

      const read = await api.request("/v1/credit", { apiKey: readerKey });
      expect(read.status).toBe(200);

      await otherProcess.query("COMMIT");
      expect((await Promise.all(creates)).map((create) => create.status)).toEqual(
        Array(POOL_SIZE * 2).fill(201),
      );
    } finally {
      await Promise.all([otherProcess.end(), observer.end()]);
    }
  });
});

describe("rate limits while Redis hangs", () => {
  let proxy: TcpProxy;
  let api: TestApi;

  beforeAll(async () => {
    const redis = new URL(TEST_REDIS_URL);
    proxy = await new TcpProxy({ host: redis.hostname, port: Number(redis.port) }).start();
    api = await startTestApi({
      env: {
        ROLE: "api",
        REDIS_URL: `redis://${proxy.address.host}:${proxy.address.port}`,
        RATE_LIMIT_GENERAL: "100",
      },
    });
  });
  afterAll(async () => {
    proxy.resume();
    await api.close();
    await proxy.cut();
  });

  it("waits for it once, then lets requests through without asking it for a while", async () => {
    const { apiKey } = await api.createAccount();
    expect((await api.request("/v1/credit", { apiKey })).headers.get("ratelimit-limit")).toBe("100");
    proxy.hang();
    // The first request waits out the count's timeout and goes through uncounted.
    const first = await api.request("/v1/credit", { apiKey });
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-limit")).toBeNull();
    const sentToHungRedis = proxy.bytesHeld;
    expect(sentToHungRedis).toBeGreaterThan(0);
    // The next ones send Redis nothing: none of them waits for it.
    const next = await Promise.all(Array.from({ length: 5 }, () => api.request("/v1/credit", { apiKey })));
    expect(next.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    expect(proxy.bytesHeld).toBe(sentToHungRedis);
  });
});
