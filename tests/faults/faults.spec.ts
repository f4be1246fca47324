import { randomUUID } from "node:crypto";
import { ImagehubClient } from "@imagehub/client";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestOnFreshConnection } from "../support/fresh-connection.js";
import { until } from "../support/until.js";
import { WebhookReceiver } from "../support/webhook-receiver.js";
import { Cluster } from "./cluster.js";
import { brokenInvariants, query } from "./invariants.js";

/**
 * imagehub under real faults: processes as in production (2 API, 2 workers) on a PostgreSQL and a Redis of
 * the suite's own, a receiver checking every signature, and the invariants checked after each scenario.
 * `npm test` runs the short form; `npm run test:faults` (FAULT_SUITE=full) the long outages. An outage lasts
 * until the system has met it so many times, never for a length of wall-clock time: clients' calls refused
 * while PostgreSQL is down (each client backing off between its retries), and every event's delivery
 * attempts refused, then answered 500, while the receiver is down (each following the retry schedule).
 */
const isFull = process.env.FAULT_SUITE === "full";
/**
 * FAULT_TIMINGS=defaults: the product's own lock, sweep, schedule and retry settings (a dead worker's jobs
 * taken over after 30 to 60 s, sweeps every minute, webhook retries 5 s then 5 minutes apart), so that
 * recoveries take as long as in production; otherwise accelerated ones, for a short run.
 */
const isDefaultTimings = process.env.FAULT_TIMINGS === "defaults";
const ACCELERATED_TIMINGS = {
  WEBHOOK_RELAY_INTERVAL_MS: "50",
  WEBHOOK_SWEEP_SECONDS: "2",
  // About 4 minutes in all: longer than the full form's 2 minutes of receiver outage, else its events are
  // given up by design (the default schedule spans about a day).
  WEBHOOK_RETRY_SCHEDULE: "1,1,2,2,4,4,8,8,16,16,32,32,64,64",
  GENERATION_LOCK_SECONDS: "2",
  GENERATION_SWEEP_SECONDS: "2",
  JOB_SCHEDULE_REFRESH_MS: "1000",
};
const OUTAGE = {
  ...(isFull
    ? { postgresRefusals: 150, receiverRefusals: 9, receiverFailures: 2, generations: 30 }
    : { postgresRefusals: 20, receiverRefusals: 1, receiverFailures: 1, generations: 6 }),
  // On the default retry schedule a third attempt comes 5 minutes after the second: no more fit the bound.
  ...(isDefaultTimings && { receiverRefusals: 1, receiverFailures: 1 }),
};
/** Every scenario must be back to its invariants within this long after its faults end. */
const RECOVERY_BOUND_MS = isDefaultTimings ? 600_000 : 180_000;
/** Fresh connections made as an API is sent SIGTERM. */
const FRESH_CONNECTIONS = 100;

const PROCESS_ENV = {
  LOG_LEVEL: "error",
  REDIS_PREFIX: "faults",
  LINK_SECRET: "a-link-secret-shared-by-both-api-processes",
  DEMO_ACCOUNT: "false",
  CATALOGUE_SEED_COUNT: "120",
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_TIMEOUT_SECONDS: "2",
  PROCEDURAL_IMAGE_DELAY_MS: "150",
  DATABASE_CONNECT_TIMEOUT_MS: "2000",
  // As behind a load balancer that stops sending within 5 s of /health saying "stopping".
  SHUTDOWN_PRE_STOP_MS: "5000",
  ...(isDefaultTimings ? {} : ACCELERATED_TIMINGS),
  // One owner makes every generation of the suite: the per-key limit on creates is not under test here.
  RATE_LIMIT_GENERATION_CREATE: "0",
};
const EVENTS = ["print.created", "print.active", "print.progress", "print.completed", "print.failed"];

interface Row {
  scenario: string;
  faults: string;
  events: number;
  lost: number;
  duplicated: number;
  recoverySeconds: number;
}

describe("imagehub under faults", { timeout: isFull || isDefaultTimings ? 1_200_000 : 300_000 }, () => {
  let cluster: Cluster;
  let owner: { email: string; apiKey: string; accountId: string };
  let buyerKey: string;
  /** A worker started again in the background, awaited by the scenario that needs it. */
  let restarting: Promise<void> = Promise.resolve();
  let secret: string;
  let receiver: WebhookReceiver;
  const rows: Row[] = [];
  /** The receiver's answer now; the ids of the events it accepted (2xx) with a valid signature. */
  let receiverStatus = 200;
  const accepted: string[] = [];
  /** Calls of the suite's clients that got a 5xx or no answer. */
  let refusedCalls = 0;
  const countingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init).catch((error: unknown) => {
      refusedCalls += 1;
      throw error;
    });
    if (response.status >= 500) refusedCalls += 1;
    return response;
  };

  const clientOf = (api: string, apiKey = owner.apiKey) =>
    new ImagehubClient({ baseUrl: cluster.baseUrl(api), apiKey, timeoutMs: 10_000, fetch: countingFetch });

  /**
   * A create as a careful client makes it: one key, retried with the client's backoff, on either API in
   * turn until one answers.
   */
  async function createGeneration(index: number, name = "Fox"): Promise<void> {
    const idempotencyKey = randomUUID();
    const apis = cluster.apiNames();
    let attempt = 0;
    await until(
      async () => {
        const api = apis[(index + attempt) % apis.length] as string;
        attempt += 1;
        try {
          await clientOf(api).generations.create(
            { name, prompt: `a red fox number ${index}`, mode: "simple" },
            { idempotencyKey },
          );
          return true;
        } catch {
          return false;
        }
      },
      { timeoutMs: RECOVERY_BOUND_MS, what: `generation ${index} to be created` },
    );
  }

  /** Until the calls refused since `before` number `count`: the outage has been met that many times. */
  const refusedSince = (before: number, count: number) =>
    until(() => refusedCalls - before >= count, {
      timeoutMs: RECOVERY_BOUND_MS,
      what: `${count} refused calls`,
    });

  /**
   * Until every event of the owner's made since `since` has had `count` delivery attempts that `failed`
   * describes (an SQL condition on webhook_attempts `a`).
   */
  const attemptsOfEveryEvent = (since: Date, failed: string, count: number) =>
    until(
      async () => {
        const [short] = await query<{ count: string }>(
          cluster.databaseUrl,
          `SELECT count(*) FROM outbox_events e WHERE e.account_id = $1 AND e.type = ANY($2)
             AND e.created_at >= $3
             AND (SELECT count(*) FROM webhook_attempts a WHERE a.event_id = e.id AND ${failed}) < $4`,
          [owner.accountId, EVENTS, since, count],
        );
        return Number(short?.count) === 0;
      },
      { timeoutMs: RECOVERY_BOUND_MS, what: `every event's ${count} attempts where ${failed}` },
    );

  /** Until every API's health check answers 503 naming `check` down. */
  const seenDownByEveryApi = (check: "database" | "redis") =>
    until(
      async () => {
        const answers = await Promise.all(
          cluster.apiNames().map(async (api) => {
            const response = await fetch(`${cluster.baseUrl(api)}/health`);
            return (
              response.status === 503 && JSON.stringify(await response.json()).includes(`${check} is down`)
            );
          }),
        );
        return answers.every(Boolean);
      },
      { timeoutMs: RECOVERY_BOUND_MS, what: `every API to report ${check} down` },
    );

  const createMany = (count: number) =>
    Promise.all(Array.from({ length: count }, (_, i) => createGeneration(i)));

  /**
   * Runs a scenario: `act` makes generations and injects its faults, answering when the faults ended. Then
   * waits until every generation is finished and every event delivered, and checks the invariants.
   */
  async function scenario(name: string, faults: string, act: () => Promise<number>): Promise<void> {
    const [{ since }] = (await query<{ since: Date }>(cluster.databaseUrl, "SELECT now() AS since")) as [
      { since: Date },
    ];
    // The worker restarted by the scenario before is up before this one's faults (a Redis killed while it
    // starts would stop it).
    await restarting;
    const faultsEndedAt = await act();
    const expectedEvents = async () =>
      (
        await query<{ id: string }>(
          cluster.databaseUrl,
          "SELECT id FROM outbox_events WHERE account_id = $1 AND type = ANY($2) AND created_at >= $3",
          [owner.accountId, EVENTS, since],
        )
      ).map((row) => row.id);
    const received = () => accepted;
    let lost: string[] = [];
    // Past the bound, the invariants and the events lost are what the failure reports.
    await until(
      async () => {
        const [unfinished] = await query<{ count: string }>(
          cluster.databaseUrl,
          "SELECT count(*) FROM generations WHERE status IN (1, 2)",
        );
        const delivered = new Set(received());
        lost = (await expectedEvents()).filter((id) => !delivered.has(id));
        return Number(unfinished?.count) === 0 && lost.length === 0;
      },
      { timeoutMs: RECOVERY_BOUND_MS, what: "recovery" },
    ).catch(() => {});
    const recoverySeconds = Math.max(0, (Date.now() - faultsEndedAt) / 1000);
    const expected = new Set(await expectedEvents());
    const copies = received().filter((id) => expected.has(id));
    rows.push({
      scenario: name,
      faults,
      events: expected.size,
      lost: lost.length,
      duplicated: copies.length - new Set(copies).size,
      recoverySeconds,
    });
    expect(await brokenInvariants(cluster.databaseUrl)).toEqual([]);
    expect(lost).toEqual([]);
  }

  beforeAll(async () => {
    cluster = await Cluster.create(PROCESS_ENV);
    // The first API migrates and seeds the catalogue alone; the others start together.
    await cluster.startProcess("api-1", "api");
    const email = "owner@faults.test";
    const buyer = "buyer@faults.test";
    const [account] = await Promise.all([
      cluster.admin("account", "create", "--email", email, "--credits", "f_images_print=10000"),
      cluster.admin("account", "create", "--email", buyer, "--credits", "f_images=10"),
      cluster.startProcess("api-2", "api"),
      cluster.startProcess("worker-1", "worker"),
      cluster.startProcess("worker-2", "worker"),
    ]);
    const [{ key }, bought] = await Promise.all([
      cluster.admin("key", "create", "--email", email),
      cluster.admin("key", "create", "--email", buyer),
    ]);
    owner = { email, apiKey: key as string, accountId: account.id as string };
    buyerKey = bought.key as string;
    receiver = await new WebhookReceiver((request) => {
      if (receiverStatus !== 200) return { status: receiverStatus };
      try {
        new StandardWebhook(secret).verify(request.body, {
          "webhook-id": request.headers["webhook-id"] as string,
          "webhook-timestamp": request.headers["webhook-timestamp"] as string,
          "webhook-signature": request.headers["webhook-signature"] as string,
        });
      } catch {
        return { status: 401 };
      }
      accepted.push(request.envelope.id);
      return { status: 200 };
    }).start();
    ({ secret } = await clientOf("api-1").webhooks.subscribe({ url: receiver.url, events: EVENTS as never }));
  }, 300_000);

  afterAll(async () => {
    const table = [
      "| scenario | faults | events | lost | duplicated | recovery (s) |",
      "| --- | --- | --- | --- | --- | --- |",
      ...rows.map(
        (row) =>
          `| ${row.scenario} | ${row.faults} | ${row.events} | ${row.lost} | ${row.duplicated} | ${row.recoverySeconds.toFixed(1)} |`,
      ),
    ];
    const form = `${isFull ? "full" : "short"} form, ${isDefaultTimings ? "default" : "accelerated"} timings`;
    process.stdout.write(`\nFault suite (${form})\n${table.join("\n")}\n`);
    await receiver?.stop();
    await cluster?.close();
  });

  it("kill -9 of a worker in the middle of generations", async () => {
    await scenario(
      "worker killed",
      "kill -9 worker-1 while generating, restarted once all are created",
      async () => {
        const creating = createMany(OUTAGE.generations);
        await waitForProcessing();
        await cluster.kill("worker-1");
        const endedAt = Date.now();
        await creating;
        restarting = cluster.startProcess("worker-1", "worker");
        return endedAt;
      },
    );
  });

  it("Redis killed and restarted empty", async () => {
    await scenario(
      "Redis lost",
      "Redis killed mid-generation, restarted empty once every API saw it gone",
      async () => {
        const creating = createMany(OUTAGE.generations);
        await waitForProcessing();
        await cluster.killRedis();
        // Creates go on while Redis is away: committed, queued later by the sweep.
        await Promise.all([
          creating,
          createGeneration(0, "while Redis is away"),
          seenDownByEveryApi("redis"),
        ]);
        await cluster.startRedis();
        return Date.now();
      },
    );
  });

  it(`PostgreSQL stopped for ${OUTAGE.postgresRefusals} refused calls`, async () => {
    await scenario(
      "PostgreSQL down",
      `pg_ctl stop mid-generation, creates going on, for ${OUTAGE.postgresRefusals} refused calls`,
      async () => {
        const creating = createMany(OUTAGE.generations);
        await waitForProcessing();
        await cluster.stopPostgres();
        const refusedBefore = refusedCalls;
        const during = createMany(3);
        await Promise.all([
          seenDownByEveryApi("database"),
          refusedSince(refusedBefore, OUTAGE.postgresRefusals),
        ]);
        await cluster.startPostgres();
        const endedAt = Date.now();
        await Promise.all([creating, during]);
        return endedAt;
      },
    );
  });

  it("receiver refusing, then answering 500, then healthy", async () => {
    await scenario(
      "receiver down",
      `receiver refusing ${OUTAGE.receiverRefusals}, then answering 500 to ${OUTAGE.receiverFailures} attempts of each event`,
      async () => {
        const [{ since }] = (await query<{ since: Date }>(cluster.databaseUrl, "SELECT now() AS since")) as [
          { since: Date },
        ];
        await receiver.stop();
        await createMany(OUTAGE.generations);
        await attemptsOfEveryEvent(since, "a.status_code IS NULL", OUTAGE.receiverRefusals);
        receiverStatus = 500;
        await receiver.start();
        await attemptsOfEveryEvent(since, "a.status_code = 500", OUTAGE.receiverFailures);
        receiverStatus = 200;
        const [webhook] = (await clientOf("api-1").webhooks.list()).webhooks;
        expect(webhook?.disabled).toBe(false);
        return Date.now();
      },
    );
  });

  it("100 parallel buys on short credits", async () => {
    await scenario(
      "buys",
      "100 buys at once (10 credits), and one image bought 10 times at once",
      async () => {
        const buyers = cluster.apiNames().map((api) => clientOf(api, buyerKey));
        const { images } = await (buyers[0] as ImagehubClient).images.search({ limit: 100 });
        const outcomes = await Promise.allSettled([
          ...images.map((image, index) =>
            (buyers[index % buyers.length] as ImagehubClient).images.buy(image.id),
          ),
          ...Array.from({ length: 10 }, (_, index) =>
            (buyers[index % buyers.length] as ImagehubClient).images.buy((images[0] as { id: string }).id),
          ),
        ]);
        const refused = outcomes.filter((outcome) => outcome.status === "rejected");
        for (const outcome of refused)
          expect((outcome.reason as { statusCode: number }).statusCode).toBe(402);
        return Date.now();
      },
    );
  });

  it("duplicate creates with one idempotency key", async () => {
    await scenario("one key", "20 creates at once with one Idempotency-Key, on both APIs", async () => {
      const name = `idempotent-${randomUUID()}`;
      const idempotencyKey = randomUUID();
      const apis = cluster.apiNames();
      await Promise.allSettled(
        Array.from({ length: 20 }, (_, index) =>
          clientOf(apis[index % apis.length] as string).generations.create(
            { name, prompt: "one red fox", mode: "simple" },
            { idempotencyKey },
          ),
        ),
      );
      const [made] = await query<{ count: string }>(
        cluster.databaseUrl,
        "SELECT count(*) FROM generations WHERE name = $1",
        [name],
      );
      expect(Number(made?.count)).toBe(1);
      return Date.now();
    });
  });

  it("SIGTERM to an API under load and to a worker in the middle of a job", async () => {
    await scenario("SIGTERM", "SIGTERM api-1 under load and worker-2 mid-job", async () => {
      const creating = createMany(OUTAGE.generations * 2);
      await waitForProcessing();
      const [apiExit, workerExit] = await Promise.all([
        cluster.terminate("api-1"),
        cluster.terminate("worker-2"),
      ]);
      expect([apiExit, workerExit]).toEqual([0, 0]);
      const endedAt = Date.now();
      await creating;
      return endedAt;
    });
  });

  it(`SIGTERM to an API as ${FRESH_CONNECTIONS} fresh connections send their requests`, async () => {
    await scenario(
      "SIGTERM, fresh connections",
      `SIGTERM api-3 as ${FRESH_CONNECTIONS} connections open`,
      async () => {
        // An API of its own: the scenario runs alone (`-t`) as well as after the others.
        await cluster.startProcess("api-3", "api");
        const port = Number(new URL(cluster.baseUrl("api-3")).port);
        const exited = cluster.terminate("api-3");
        const outcomes = await Promise.all(
          Array.from({ length: FRESH_CONNECTIONS }, () => requestOnFreshConnection(port, owner.apiKey)),
        );
        expect(await exited).toBe(0);
        // Refused before anything was sent is what a stopped server does; a reset request is lost.
        expect(outcomes.filter((outcome) => outcome !== "answered" && outcome !== "refused")).toEqual([]);
        expect(outcomes).toContain("answered");
        return Date.now();
      },
    );
  });

  /** Until some generation is in a worker's hands. */
  function waitForProcessing(): Promise<void> {
    return until(
      async () => {
        const [row] = await query<{ count: string }>(
          cluster.databaseUrl,
          "SELECT count(*) FROM generations WHERE status = 2",
        );
        return Number(row?.count) > 0;
      },
      { timeoutMs: RECOVERY_BOUND_MS, what: "a generation in a worker's hands" },
    );
  }
});
