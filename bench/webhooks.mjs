// bench:webhooks: events fanned out to 2 local receivers by the relay and the BullMQ delivery workers.
//  1. ceiling: a bare loop of signed POSTs (undici.request, Node's HMAC as the sender signs) at the delivery
//     concurrency, before the platform's runs and again after them (the machine may be shared: the share is
//     of their mean, and each row carries the 1-minute load average when it ended);
//  2. throughput: EVENTS events committed at once, until every delivery has arrived (deliveries/s);
//  3. lag: events committed at 200/s, then at 1,000/s, for LAG_SECONDS each, lag from each commit to its
//     receipt (p50/p99).
// During the burst it also measures the CPU time per delivery of the API process (relay and delivery
// worker), PostgreSQL's backends on the bench database, Redis and the receivers: the 2 cores are shared.
// Events are written to the outbox directly, as the generations' transactions write them.
// Run through `npm run bench:webhooks` (it builds first). Needs PostgreSQL and Redis. BENCH_CPU_PROF_DIR: the
// API process writes a CPU profile (node --cpu-prof) there when it stops.
import { fork } from "node:child_process";
import { createHmac } from "node:crypto";
import { once } from "node:events";
import { rm } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import pg from "pg";
import { Agent, request } from "undici";
import { demoKey, freePort, start, stop, WITHOUT_LIMITS } from "../tests/support/start-command.mjs";
import { cpuProfiling } from "./lib/api.mjs";
import { freshDatabase } from "./lib/fresh-database.mjs";
import { measureCpu } from "./lib/process-cpu.mjs";
import { percentile } from "./lib/stats.mjs";

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 20_000);
const LAG_RATES = [200, 1000];
const LAG_SECONDS = Number(process.env.BENCH_LAG_SECONDS ?? 20);
/** Deliveries the worker makes at once (WEBHOOK_CONCURRENCY, default 100), and the bare loop too. */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 100);
const DATABASE_URL =
  process.env.BENCH_WEBHOOKS_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/imagehub_bench_webhooks";
const DATABASE = new URL(DATABASE_URL).pathname.slice(1);
const DATA_DIR = `/tmp/${DATABASE}`;
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const RECEIVERS = fileURLToPath(new URL("./lib/webhook-receivers.mjs", import.meta.url));

/** A payload the size of a completed generation's. */
function payloadOf(/** @type {number} */ index) {
  return {
    id: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
    name: "Fox in the snow",
    prompt: "a red fox in the snow at sunrise, soft light",
    status: 3,
    images: Array.from({ length: 4 }, (_, image) => ({
      id: `00000000-0000-4000-9000-${String(index * 4 + image).padStart(12, "0")}`,
      title: "a red fox in the snow at sunrise, soft light",
      url: `https://images.example.com/v1/images/preview/${index}-${image}.jpg`,
      urlFull: `https://images.example.com/v1/images/full/${index}-${image}.jpg`,
    })),
    createdAt: new Date().toISOString(),
  };
}

/** @returns {Promise<{ child: import("node:child_process").ChildProcess, ports: number[] }>} */
async function startReceivers() {
  const child = fork(RECEIVERS, { stdio: "inherit" });
  const [{ ports }] = /** @type {[{ ports: number[] }]} */ (await once(child, "message"));
  return { child, ports };
}

/** @param {import("node:child_process").ChildProcess} child @returns {Promise<Map<string, number>[]>} */
async function receivedBy(child) {
  child.send("report");
  const [{ received }] = /** @type {[{ received: [string, number][][] }]} */ (await once(child, "message"));
  return received.map((log) => new Map(log));
}

/** The ceiling: COUNT signed POSTs by CONCURRENCY loops, alternating receivers. Answers posts/s. */
async function bareLoop(/** @type {number[]} */ ports, /** @type {number} */ count) {
  const agent = new Agent();
  const key = Buffer.alloc(32, 7);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let index = next++; index < count; index = next++) {
        const id = `bare-${index}`;
        const body = JSON.stringify({
          id,
          api_version: 1,
          created: 0,
          type: "print.completed",
          data: payloadOf(index),
        });
        const timestamp = Math.floor(Date.now() / 1000);
        const response = await request(`http://127.0.0.1:${ports[index % ports.length]}/hooks`, {
          method: "POST",
          dispatcher: agent,
          headers: {
            "content-type": "application/json",
            "webhook-id": id,
            "webhook-timestamp": String(timestamp),
            "webhook-signature": `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`,
          },
          body,
        });
        await response.body.dump();
      }
    }),
  );
  const perSecond = count / ((performance.now() - started) / 1000);
  await agent.close();
  return perSecond;
}

/**
 * Commits `count` events for the account in one transaction per `batch`; answers each event's commit time.
 * @param {pg.Client} db @param {string} accountId @param {number} count @param {number} firstIndex
 */
async function commitEvents(db, accountId, count, firstIndex) {
  const { rows } = await db.query(
    `INSERT INTO outbox_events (id, account_id, type, payload)
     SELECT gen_random_uuid(), $1, 'print.completed', $2::jsonb || jsonb_build_object('index', $3::int + n)
     FROM generate_series(0, $4::int - 1) AS n RETURNING id`,
    [accountId, JSON.stringify(payloadOf(firstIndex)), firstIndex, count],
  );
  const committedAt = Date.now();
  return rows.map((row) => /** @type {[string, number]} */ ([row.id, committedAt]));
}

/** @param {Map<string, number>[]} received @param {[string, number][]} committed */
function lagsOf(received, committed) {
  return received.flatMap((log) =>
    committed.map(([id, committedAt]) => (log.get(id) ?? Number.NaN) - committedAt),
  );
}

/** @param {import("node:child_process").ChildProcess} child @param {number} total */
async function waitForDeliveries(child, total) {
  for (;;) {
    const received = await receivedBy(child);
    const count = received.reduce((sum, log) => sum + log.size, 0);
    process.stderr.write(`\r  ${count} / ${total} deliveries received`);
    if (count >= total) {
      process.stderr.write("\n");
      return received;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The Redis server's process id, for its CPU time (a server on this machine). */
async function redisPid() {
  const redis = new Redis(REDIS_URL);
  try {
    return Number(/process_id:(\d+)/.exec(await redis.info("server"))?.[1]);
  } finally {
    redis.disconnect();
  }
}

/** The 1-minute load average now: how busy the (possibly shared) machine was. */
const load = () => loadavg()[0]?.toFixed(1);

const receivers = await startReceivers();
process.stderr.write(`ceiling: ${EVENTS * 2} bare signed POSTs\n`);
const ceilingBefore = { rate: await bareLoop(receivers.ports, EVENTS * 2), load: load() };

await freshDatabase(DATABASE_URL);
await rm(DATA_DIR, { recursive: true, force: true });
const port = await freePort();
const api = start(
  {
    DATABASE_URL,
    PORT: String(port),
    DATA_DIR,
    DEMO_ACCOUNT: "true",
    REDIS_URL,
    REDIS_PREFIX: `bench-webhooks-${Date.now().toString(36)}`,
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_CONCURRENCY: String(CONCURRENCY),
    LOG_LEVEL: "warn",
    ...WITHOUT_LIMITS,
  },
  cpuProfiling(),
);
const db = new pg.Client({ connectionString: DATABASE_URL });
try {
  const key = await demoKey(api);
  await db.connect();
  for (const receiverPort of receivers.ports) {
    const response = await fetch(`http://127.0.0.1:${port}/v1/api-keys/webhook/subscribe`, {
      method: "POST",
      headers: { "api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hooks`, events: ["print.completed"] }),
    });
    if (response.status !== 201)
      throw new Error(`subscribe answered ${response.status}: ${await response.text()}`);
  }
  const { rows } = await db.query("SELECT account_id FROM webhooks LIMIT 1");
  const accountId = rows[0].account_id;

  process.stderr.write(`throughput: ${EVENTS} events at once, to ${receivers.ports.length} receivers\n`);
  receivers.child.send("reset");
  /** @type {[string, number][]} */
  const committed = [];
  /** @type {Map<string, number>[]} */
  let received = [];
  const processes = {
    api: Number(api.child.pid),
    redis: await redisPid(),
    receivers: Number(receivers.child.pid),
  };
  const burstCpu = await measureCpu(db, DATABASE, processes, async () => {
    for (let index = 0; index < EVENTS; index += 1000) {
      committed.push(...(await commitEvents(db, accountId, Math.min(1000, EVENTS - index), index)));
    }
    received = await waitForDeliveries(receivers.child, committed.length * receivers.ports.length);
  });
  const firstCommit = Math.min(...committed.map(([, at]) => at));
  const lastReceipt = Math.max(...received.flatMap((log) => [...log.values()]));
  const throughput = (committed.length * receivers.ports.length) / ((lastReceipt - firstCommit) / 1000);

  const throughputLoad = load();

  const lagRuns = [];
  for (const rate of LAG_RATES) {
    process.stderr.write(`lag: ${rate} events/s for ${LAG_SECONDS} s\n`);
    receivers.child.send("reset");
    const paced = [];
    const tick = 50;
    const perTick = (rate * tick) / 1000;
    const started = Date.now();
    for (let step = 0; step < (LAG_SECONDS * 1000) / tick; step += 1) {
      await new Promise((resolve) => setTimeout(resolve, started + step * tick - Date.now()));
      paced.push(...(await commitEvents(db, accountId, perTick, EVENTS + step * perTick)));
    }
    const pacedReceived = await waitForDeliveries(receivers.child, paced.length * receivers.ports.length);
    lagRuns.push({ rate, lags: lagsOf(pacedReceived, paced), load: load() });
  }

  process.stderr.write(`ceiling again: ${EVENTS * 2} bare signed POSTs\n`);
  const ceilingAfter = { rate: await bareLoop(receivers.ports, EVENTS * 2), load: load() };
  const ceiling = (ceilingBefore.rate + ceilingAfter.rate) / 2;

  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model}, node ${process.version}; delivery concurrency ${CONCURRENCY}\n`,
  );
  console.log("| run | deliveries | deliveries/s | share of ceiling | lag p50 / p99 ms | load average |");
  console.log("|---|---|---|---|---|---|");
  for (const [name, run] of /** @type {const} */ ([
    ["before", ceilingBefore],
    ["after", ceilingAfter],
  ])) {
    console.log(
      `| bare signed POST loop (ceiling), ${name} | ${EVENTS * 2} | ${run.rate.toFixed(0)} | — | — | ${run.load} |`,
    );
  }
  console.log(
    `| ${EVENTS} events at once | ${committed.length * 2} | ${throughput.toFixed(0)} | ${((throughput / ceiling) * 100).toFixed(0)} % | — | ${throughputLoad} |`,
  );
  for (const { rate, lags, load: runLoad } of lagRuns) {
    console.log(
      `| ${rate} events/s for ${LAG_SECONDS} s | ${lags.length} | — | — | ${percentile(lags, 50).toFixed(0)} / ${percentile(lags, 99).toFixed(0)} | ${runLoad} |`,
    );
  }
  const deliveries = committed.length * receivers.ports.length;
  /** @param {number} ms */
  const perDelivery = (ms) => `${((ms * 1000) / deliveries).toFixed(0)} µs`;
  const { servers } = burstCpu;
  console.log(
    `\nCPU per delivery in the burst: API process (relay and deliveries) ${perDelivery(servers.api)}, ` +
      `PostgreSQL's backends ${perDelivery(burstCpu.postgres)}, Redis ${perDelivery(servers.redis)}, ` +
      `receivers ${perDelivery(servers.receivers)}, the bench (commits) ${perDelivery(burstCpu.loadGenerator)}; ` +
      `the machine was ${(burstCpu.machineBusy * 100).toFixed(0)} % busy`,
  );
} finally {
  await db.end();
  await stop(api);
  receivers.child.kill();
}
