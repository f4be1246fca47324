// bench:ratelimit: one key floods 1,000 generation creates in 10 s while another account reads its credits
// (GET /v1/credit, 50 a second, open loop: a slow read does not delay the next); that account's latency idle
// and during the flood, with the default rate limits and with none. An API process (ROLE=api) on
// PostgreSQL and Redis: what it accepts waits in the queue for workers, which run elsewhere in a
// deployment; BENCH_WITH_WORKER=true starts one beside it, on the same cores. The flood comes from a process
// of its own, as another client's would, started before the measured window. Besides the latencies: the
// API's CPU, event-loop delay and GC time in each window (its own /metrics), the flood client's CPU, and
// the slowest reads against the flood's progress. The API has served a few creates of a third account
// before the windows, as a deployed one has. Then, with the flooding key's budget spent, how fast
// the API refuses its creates beside a route that does nothing.
// BENCH_READS_PER_SECOND changes the reads' rate; BENCH_CPU_PROF_DIR writes the API's CPU profiles there.
// Run through `npm run bench:ratelimit` (it builds first). Needs PostgreSQL and Redis.
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { readFile, rm } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import pg from "pg";
import { demoKey, freePort, start, stop, WITHOUT_LIMITS } from "../tests/support/start-command.mjs";
import { freshDatabase } from "./lib/fresh-database.mjs";
import { createBody } from "./lib/generation-requests.mjs";
import { CONNECTIONS, httpLoad } from "./lib/load.mjs";
import { paced } from "./lib/paced.mjs";
import { percentile } from "./lib/stats.mjs";

const FLOOD = 1000;
const FLOOD_SECONDS = 10;
const READS_PER_SECOND = Number(process.env.BENCH_READS_PER_SECOND ?? 50);
const WITH_WORKER = process.env.BENCH_WITH_WORKER === "true";
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF_DIR;
const DATABASE_URL =
  process.env.BENCH_RATELIMIT_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/imagehub_bench_ratelimit";
const DATA_DIR = "/tmp/imagehub-bench-ratelimit";
const METRICS_TOKEN = "bench-ratelimit-metrics";
const ADMIN_CLI = join(import.meta.dirname, "../apps/api/dist/admin/admin.cli.js");
const FLOOD_CLIENT = join(import.meta.dirname, "lib/flood.mjs");
/** Creates another account makes before the measured windows, so that the create path is not cold. */
const WARM_UP_CREATES = 3;
/** The slowest reads during the flood, listed with what the flood had done by then. */
const SLOWEST_LISTED = 5;

/**
 * CPU seconds (user and system) a process has used so far, from /proc.
 * @param {number | undefined} pid
 */
async function cpuSeconds(pid) {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]?.split(" ") ?? [];
  // utime and stime, the 12th and 13th fields after the command, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The API's event-loop delay since the previous scrape (prom-client resets it at each) and its GC seconds
 * so far, from its /metrics.
 * @param {string} base
 */
async function scrape(base) {
  const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await response.text();
  /** @param {RegExp} pattern */
  const sum = (pattern) =>
    text
      .split("\n")
      .filter((line) => pattern.test(line))
      .reduce((total, line) => total + Number(line.split(" ").at(-1)), 0);
  /** @type {[number, number][]} */
  const readBuckets = [];
  for (const line of text.split("\n")) {
    const bucket =
      /^imagehub_http_request_duration_seconds_bucket\{le="([^"]+)",method="GET",route="\/v1\/credit",status="200"\} (\d+)$/.exec(
        line,
      );
    if (bucket) readBuckets.push([Number(bucket[1]) * 1000, Number(bucket[2])]);
  }
  return {
    loopDelayP99Ms: sum(/^imagehub_nodejs_eventloop_lag_p99_seconds /) * 1000,
    loopDelayMaxMs: sum(/^imagehub_nodejs_eventloop_lag_max_seconds /) * 1000,
    gcSeconds: sum(/^imagehub_nodejs_gc_duration_seconds_sum\{/),
    readBuckets,
  };
}

/**
 * The API's own p99 for the reads between two scrapes, as the upper bound of its histogram bucket: from
 * the request read to the answer written. A read the client waited for far longer waited to be read at
 * all (a process starved of CPU, a queue of connections).
 * @param {[number, number][]} before cumulative counts by bucket bound (ms)
 * @param {[number, number][]} after
 */
function readP99Bound(before, after) {
  const counts = after.map(
    ([bound, count], index) => /** @type {[number, number]} */ ([bound, count - (before[index]?.[1] ?? 0)]),
  );
  const total = counts.at(-1)?.[1] ?? 0;
  return counts.find(([, count]) => count >= total * 0.99)?.[0] ?? Number.NaN;
}

/**
 * What the API process did over one window: its CPU, event-loop delay and GC time.
 * @template T
 * @param {string} base
 * @param {number | undefined} pid
 * @param {() => Promise<T>} work
 */
async function observed(base, pid, work) {
  const before = await scrape(base);
  const cpuBefore = await cpuSeconds(pid);
  const result = await work();
  const cpu = (await cpuSeconds(pid)) - cpuBefore;
  const after = await scrape(base);
  return {
    result,
    api: {
      cpu,
      loopDelayP99Ms: after.loopDelayP99Ms,
      loopDelayMaxMs: after.loopDelayMaxMs,
      gcMs: (after.gcSeconds - before.gcSeconds) * 1000,
      readP99BoundMs: readP99Bound(before.readBuckets, after.readBuckets),
    },
  };
}

/** @param {string} base @param {string} key */
function readCredits(base, key) {
  return () => fetch(`${base}/v1/credit`, { headers: { "api-key": key } });
}

/** @param {{ status: number, ms: number }[]} outcomes */
function latencies(outcomes) {
  const ok = outcomes.filter((outcome) => outcome.status === 200).map((outcome) => outcome.ms);
  return {
    count: ok.length,
    p50: percentile(ok, 50),
    p95: percentile(ok, 95),
    p99: percentile(ok, 99),
    max: Math.max(...ok),
    failed: outcomes.length - ok.length,
  };
}

/**
 * The flood client, started and ready (its HTTP client loaded, a connection open): `flood()` starts the
 * flood and answers what it printed.
 * @param {string} base @param {string} key
 */
async function floodClient(base, key) {
  const child = spawn(process.execPath, [FLOOD_CLIENT, base, key, String(FLOOD), String(FLOOD_SECONDS)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: /** @type {import("node:stream").Readable} */ (child.stdout) });
  const printed = lines[Symbol.asyncIterator]();
  const ready = await printed.next();
  if (ready.value !== "ready") throw new Error(`the flood client did not start: ${ready.value}`);
  return {
    /**
     * @returns {Promise<{ statuses: Record<string, number>, firstError?: string, startedAt: number,
     *   creates: [number, number, number][], cpuSeconds: number }>}
     */
    async flood() {
      child.stdin?.end("go\n");
      const report = await printed.next();
      await once(child, "exit");
      return JSON.parse(report.value);
    },
  };
}

/**
 * The slowest reads during the flood, each with when it was sent into the flood and how many creates had
 * been sent, and accepted (answered 201), by then.
 * @param {{ status: number, ms: number, at: number }[]} reads
 * @param {number} readsStartedAt epoch ms
 * @param {{ startedAt: number, creates: [number, number, number][] }} flood
 */
function slowestReads(reads, readsStartedAt, flood) {
  return reads
    .filter((read) => read.status === 200)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, SLOWEST_LISTED)
    .map((read) => {
      const intoFlood = readsStartedAt + read.at - flood.startedAt;
      const sent = flood.creates.filter(([at]) => at <= intoFlood).length;
      const accepted = flood.creates.filter(
        ([at, ms, status]) => status === 201 && at + ms <= intoFlood,
      ).length;
      return `${read.ms.toFixed(1)} ms at +${Math.round(intoFlood)} ms (${sent} creates sent, ${accepted} accepted)`;
    });
}

/**
 * A deployed API has served creates before any flood: the first ones in a process load their code paths
 * (about 40 ms of CPU for the first against 7 for the next, on this machine), which is no part of what a
 * flood costs. A third account's creates, so that neither measured key's budget is touched.
 * @param {string} base
 * @param {(...args: string[]) => Promise<{ stdout: string }>} admin
 */
async function warmUpCreates(base, admin) {
  await admin(
    "account",
    "create",
    "--email",
    "warm-up@example.test",
    "--credits",
    `f_images_print=${WARM_UP_CREATES}`,
  );
  const key = JSON.parse((await admin("key", "create", "--email", "warm-up@example.test")).stdout).key;
  for (let index = 0; index < WARM_UP_CREATES; index++) {
    const response = await fetch(`${base}/v1/image-generations`, {
      method: "POST",
      headers: { "api-key": key, "content-type": "application/json" },
      body: JSON.stringify(createBody(index)),
    });
    if (response.status !== 201)
      throw new Error(`a warm-up create got ${response.status}: ${await response.text()}`);
  }
}

/** @param {string} name @param {Record<string, string>} limits */
async function run(name, limits) {
  await freshDatabase(DATABASE_URL);
  await rm(DATA_DIR, { recursive: true, force: true });
  const env = {
    DATABASE_URL,
    DATA_DIR,
    REDIS_PREFIX: `bench-ratelimit-${Date.now().toString(36)}`,
    LOG_LEVEL: "warn",
    ...limits,
  };
  const port = await freePort();
  const api = start(
    { ...env, ROLE: "api", PORT: String(port), DEMO_ACCOUNT: "true", METRICS_TOKEN },
    CPU_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${CPU_PROFILE_DIR}`] : [],
  );
  const worker = WITH_WORKER ? start({ ...env, ROLE: "worker" }) : undefined;
  const db = new pg.Client({ connectionString: DATABASE_URL });
  try {
    const flooder = await demoKey(api);
    await db.connect();
    await db.query("UPDATE credit_buckets SET unlimited = true");
    const admin = (/** @type {string[]} */ ...args) =>
      promisify(execFile)(process.execPath, [ADMIN_CLI, ...args, "--json"], {
        env: { PATH: process.env.PATH ?? "", DATABASE_URL },
      });
    await admin("account", "create", "--email", "reader@example.test", "--credits", "f_images=10");
    // Its reads are counted, as every key's are, against a budget they never reach.
    await admin("limits", "set", "--email", "reader@example.test", "--general", "1000000");
    const reader = JSON.parse((await admin("key", "create", "--email", "reader@example.test")).stdout).key;
    const base = `http://127.0.0.1:${port}`;
    const read = readCredits(base, reader);
    await warmUpCreates(base, admin);
    const reads = READS_PER_SECOND * FLOOD_SECONDS;
    const client = await floodClient(base, flooder);

    await paced(READS_PER_SECOND * 2, 2, read);
    process.stderr.write(`${name}: idle reads\n`);
    const idle = await observed(base, api.child.pid, () => paced(reads, FLOOD_SECONDS, read));
    process.stderr.write(`${name}: flood of ${FLOOD} creates\n`);
    const readsStartedAt = performance.timeOrigin + performance.now();
    const floodStartedTicks = process.hrtime.bigint();
    const during = await observed(base, api.child.pid, () =>
      Promise.all([client.flood(), paced(reads, FLOOD_SECONDS, read)]),
    );
    if (CPU_PROFILE_DIR) {
      // The profile's sample times are on the same monotonic clock, in microseconds.
      const ticks = [floodStartedTicks, process.hrtime.bigint()].map((ns) => ns / 1000n);
      process.stderr.write(`${name}: API pid ${api.child.pid}, flood from ${ticks[0]} to ${ticks[1]} µs\n`);
    }
    const [flood, duringReads] = during.result;
    if (flood.firstError) process.stderr.write(`${name}: a create got no answer: ${flood.firstError}\n`);
    const uncounted = api.output().split("rate limits not applied").length - 1;
    // How fast the API refuses a spent key's creates, beside a route that does nothing (its capacity).
    const refusals = flood.statuses["429"]
      ? await httpLoad(
          {
            url: `${base}/v1/image-generations`,
            method: "POST",
            headers: { "api-key": flooder, "content-type": "application/json" },
            body: JSON.stringify(createBody(0)),
          },
          { durationS: 5 },
        )
      : undefined;
    const noop = refusals ? await httpLoad({ url: `${base}/health/live` }, { durationS: 5 }) : undefined;
    return {
      name,
      idle: { reads: latencies(idle.result), api: idle.api },
      during: { reads: latencies(duringReads), api: during.api },
      slowest: slowestReads(duringReads, readsStartedAt, flood),
      flood,
      uncounted,
      refusals,
      noop,
    };
  } finally {
    await db.end();
    await stop(api);
    if (worker) await stop(worker);
  }
}

const loadBefore = loadavg();
const results = [await run("default limits", {}), await run("no limits", WITHOUT_LIMITS)];
const print = (/** @type {string} */ line) => process.stdout.write(`${line}\n`);
print(
  `\nOne key: ${FLOOD} generation creates in ${FLOOD_SECONDS} s; another account: GET /v1/credit ${READS_PER_SECOND}/s for ${FLOOD_SECONDS} s idle, then ${FLOOD_SECONDS} s during the flood; ${WITH_WORKER ? "API and worker" : "API alone"}`,
);
print(
  `${cpus().length} cores; load average before ${loadBefore.map((load) => load.toFixed(2)).join(", ")}, after ${loadavg()
    .map((load) => load.toFixed(2))
    .join(", ")}\n`,
);
print(
  "| limits | creates answered | reads idle / during | idle p50 / p95 / p99 / max (ms) | during p50 / p95 / p99 / max (ms) | p99 during / idle |",
);
print("| --- | --- | --- | --- | --- | --- |");
/** @param {ReturnType<typeof latencies>} reads */
const figures = (reads) =>
  [reads.p50, reads.p95, reads.p99, reads.max].map((ms) => ms.toFixed(1)).join(" / ");
for (const { name, idle, during, flood, uncounted } of results) {
  const answered = Object.entries(flood.statuses)
    .map(([status, count]) => `${count} × ${status === "0" ? "no answer" : status}`)
    .join(", ");
  const failed = idle.reads.failed + during.reads.failed;
  if (uncounted > 0)
    process.stderr.write(`${name}: ${uncounted} warnings of requests let through uncounted\n`);
  print(
    `| ${name} | ${answered} | ${idle.reads.count} / ${during.reads.count}${failed > 0 ? ` (${failed} failed)` : ""} | ${figures(idle.reads)} | ${figures(during.reads)} | ${(during.reads.p99 / idle.reads.p99).toFixed(2)}× |`,
  );
}
print(
  "\n| limits | API CPU idle / during (s) | API event-loop delay p99 / max idle (ms) | during (ms) | API GC during (ms) | the API's own read p99 idle / during (ms, bucket bound) | flood client CPU (s) |",
);
print("| --- | --- | --- | --- | --- | --- | --- |");
for (const { name, idle, during, flood } of results) {
  const delay = (/** @type {typeof idle.api} */ api) =>
    `${api.loopDelayP99Ms.toFixed(1)} / ${api.loopDelayMaxMs.toFixed(1)}`;
  print(
    `| ${name} | ${idle.api.cpu.toFixed(2)} / ${during.api.cpu.toFixed(2)} | ${delay(idle.api)} | ${delay(during.api)} | ${during.api.gcMs.toFixed(0)} | ≤ ${idle.api.readP99BoundMs} / ≤ ${during.api.readP99BoundMs} | ${flood.cpuSeconds.toFixed(2)} |`,
  );
}
for (const { name, slowest } of results)
  print(`\n${name}, slowest reads during the flood: ${slowest.join("; ")}`);
for (const { name, refusals, noop } of results) {
  if (!refusals || !noop) continue;
  print(
    `\n${name}: a spent key's creates refused at ${Math.round(refusals.rate)} req/s (p99 ${refusals.p99} ms), /health/live at ${Math.round(noop.rate)} req/s (p99 ${noop.p99} ms); ${CONNECTIONS} connections, 5 s each`,
  );
}
