import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TEST_REDIS_URL, uniqueName } from "../../../tests/support/environment.js";
import { readJson } from "../../../tests/support/json.js";
import { killRedisServer, startRedisServer } from "../../../tests/support/redis-server.js";
import { apiBase, demoKey, freePort, start, stop } from "../../../tests/support/start-command.mjs";
import { startTestApi } from "../../../tests/support/test-api.js";
import { createTestDatabase } from "../../../tests/support/test-database.js";
import { until } from "../../../tests/support/until.js";
import {
  LOCAL_DELIVERY,
  receiversStoppedAfterEach,
  webhooksOf,
} from "../../../tests/support/webhooks-api.js";
import { JobRepository } from "../src/jobs/job.repository.js";

describe("webhook delivery across crashes", () => {
  const receiver = receiversStoppedAfterEach();

  // Two start-ups of the whole server, each several seconds on a loaded machine: more than the default's time.
  it("delivers an event committed just before the API process was killed, once it restarts", {
    timeout: 90_000,
  }, async () => {
    const endpoint = await receiver();
    const database = await createTestDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), "imagehub-webhook-crash-"));
    const env = {
      DATABASE_URL: database.url,
      PORT: "0",
      DEMO_ACCOUNT: "true",
      CATALOGUE_SEED_COUNT: "0",
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: uniqueName("crash"),
      DATA_DIR: dataDir,
      ...LOCAL_DELIVERY,
    };
    try {
      // The first process relays only at start: what is committed after stays in the outbox.
      const first = start({ ...env, WEBHOOK_RELAY_INTERVAL_MS: "60000", WEBHOOK_RELAY_LISTEN: "false" });
      const apiKey = await demoKey(first);
      let base = await apiBase(first);
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
        // The relay runs before the HTTP server listens: the banner tells when, and where, requests are taken.
        base = await apiBase(second);
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
    const endpoint = await receiver((_, index) =>
      index === 0 ? { status: 503, headers: { "retry-after": "2" } } : { status: 200 },
    );
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
    const endpoint = await receiver((_, index) =>
      index === 0 ? { status: 503, headers: { "retry-after": "1" } } : { status: 200 },
    );
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
