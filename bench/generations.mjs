// bench:generations: 2,000 generations through the API and real BullMQ workers, until all are Done.
//  1. sharp alone: the procedural engine rendering the same requests in a loop, no platform (the ceiling);
//  2. platform overhead: a worker whose engine hands back stored bytes, 2,000 creates offered at 20/s,
//     create → Done per generation;
//  3. with rendering: the real worker and the procedural engine, creates as fast as the API takes them.
// Run through `npm run bench:generations` (it builds first). Needs PostgreSQL and Redis. BENCH_GENERATIONS
// (default 2,000) and BENCH_CONCURRENCY (the worker's and the loop's, default 4) adjust it.
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { ProceduralEngine } from "../apps/api/dist/engines/procedural.engine.js";
import { freePort, start, stop, WITHOUT_LIMITS } from "../tests/support/start-command.mjs";
import { freshDatabase } from "./lib/fresh-database.mjs";
import { createBody, engineRequest } from "./lib/generation-requests.mjs";
import { percentile } from "./lib/stats.mjs";

const COUNT = Number(process.env.BENCH_GENERATIONS ?? 2000);
const OFFERED_PER_SECOND = 20;
/** Generations a worker runs at once (GENERATION_CONCURRENCY, default 4), and the loop's too. */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
/** Generations run before measuring, so that connections, caches and the JIT are warm. */
const WARM_UP = 100;
const CREATORS = 8;
const DATABASE_URL =
  process.env.BENCH_GENERATIONS_DATABASE_URL ??
  "postgresql://postgres@127.0.0.1:5432/imagehub_bench_generations";
const DATA_DIR = "/tmp/imagehub-bench-generations";

/** Renders the COUNT generations' images with CONCURRENCY loops; answers generations/s. */
async function sharpAlone() {
  const engine = new ProceduralEngine();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let index = next++; index < COUNT; index = next++) {
        for await (const _ of engine.generate(engineRequest(index), {
          signal: new AbortController().signal,
        })) {
          // Rendering is the work; the bytes go.
        }
      }
    }),
  );
  return COUNT / ((performance.now() - started) / 1000);
}

/** @typedef {{ id: string, sentAt: number, answeredAt: number }} Created */
/** @typedef {{ child: import("node:child_process").ChildProcess }} Worker */

/**
 * The API (ROLE=api) with an unlimited demo account, and a worker process started by `startWorker`.
 * @param {string} name
 * @param {(env: Record<string, string>) => Promise<Worker>} startWorker
 * @param {(base: string, key: string, count: number, firstIndex: number) => Promise<Created[]>} offer
 */
async function run(name, startWorker, offer) {
  await freshDatabase(DATABASE_URL);
  await rm(DATA_DIR, { recursive: true, force: true });
  const prefix = `bench-generations-${Date.now().toString(36)}`;
  const env = {
    DATABASE_URL,
    REDIS_PREFIX: prefix,
    DATA_DIR,
    LOG_LEVEL: "warn",
    GENERATION_CONCURRENCY: String(CONCURRENCY),
    ...WITHOUT_LIMITS,
  };
  const port = await freePort();
  const api = start({ ...env, ROLE: "api", PORT: String(port), DEMO_ACCOUNT: "true" });
  const worker = await startWorker(env);
  const db = new pg.Client({ connectionString: DATABASE_URL });
  try {
    const key = await demoKeyOf(api);
    await db.connect();
    await db.query("UPDATE credit_buckets SET unlimited = true");
    const base = `http://127.0.0.1:${port}`;
    process.stderr.write(`${name}: warming up with ${WARM_UP} generations\n`);
    await offer(base, key, WARM_UP, COUNT);
    await allDone(db, WARM_UP);
    process.stderr.write(`${name}: creating ${COUNT} generations\n`);
    const created = await offer(base, key, COUNT, 0);
    const done = await allDone(db, WARM_UP + created.length);
    const { rows } = await db.query(
      "SELECT generation_id AS id, created_at FROM outbox_events WHERE type = 'print.completed'",
    );
    const doneAt = new Map(rows.map((row) => [row.id, row.created_at.getTime()]));
    const latencies = created.map((entry) => (doneAt.get(entry.id) ?? Number.NaN) - entry.sentAt);
    const first = Math.min(...created.map((entry) => entry.sentAt));
    const last = Math.max(...created.map((entry) => doneAt.get(entry.id) ?? Number.NaN));
    return {
      name,
      failed: done.failed,
      perSecond: created.length / ((last - first) / 1000),
      createP50: percentile(
        created.map((entry) => entry.answeredAt - entry.sentAt),
        50,
      ),
      createP99: percentile(
        created.map((entry) => entry.answeredAt - entry.sentAt),
        99,
      ),
      doneP50: percentile(latencies, 50),
      doneP99: percentile(latencies, 99),
    };
  } finally {
    await db.end();
    await stop(api);
    await stopChild(worker);
  }
}

/** @param {ReturnType<typeof start>} api */
async function demoKeyOf(api) {
  for (let waited = 0; waited < 60_000; waited += 50) {
    const key = /Demo API key:\s+(ih_\S+)/.exec(api.output())?.[1];
    if (key) return key;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the API did not start:\n${api.output()}`);
}

/**
 * @param {string} base
 * @param {string} key
 * @param {number} index
 * @returns {Promise<Created>}
 */
async function create(base, key, index) {
  const sentAt = Date.now();
  const response = await fetch(`${base}/v1/image-generations`, {
    method: "POST",
    headers: { "api-key": key, "content-type": "application/json" },
    body: JSON.stringify(createBody(index)),
  });
  if (response.status !== 201)
    throw new Error(`create answered ${response.status}: ${await response.text()}`);
  const { id } = /** @type {{ id: string }} */ (await response.json());
  return { id, sentAt, answeredAt: Date.now() };
}

/**
 * Creates offered at a steady rate, each one sent on time whatever the previous ones are doing.
 * @param {number} perSecond
 */
function atRate(perSecond) {
  return async (
    /** @type {string} */ base,
    /** @type {string} */ key,
    /** @type {number} */ count,
    /** @type {number} */ firstIndex,
  ) => {
    const started = Date.now();
    return Promise.all(
      Array.from({ length: count }, async (_, index) => {
        await new Promise((resolve) =>
          setTimeout(resolve, started + (index * 1000) / perSecond - Date.now()),
        );
        return create(base, key, firstIndex + index);
      }),
    );
  };
}

/** Creates as fast as the API takes them, CREATORS at a time. */
async function asFastAsAccepted(
  /** @type {string} */ base,
  /** @type {string} */ key,
  /** @type {number} */ count,
  /** @type {number} */ firstIndex,
) {
  /** @type {Created[]} */
  const created = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CREATORS }, async () => {
      for (let index = next++; index < count; index = next++) {
        created.push(await create(base, key, firstIndex + index));
      }
    }),
  );
  return created;
}

/** Waits until every generation is Done or in Error. */
async function allDone(/** @type {pg.Client} */ db, /** @type {number} */ count) {
  for (;;) {
    const { rows } = await db.query(
      "SELECT count(*) FILTER (WHERE status = 3)::int AS done, count(*) FILTER (WHERE status = 4)::int AS failed FROM generations",
    );
    const { done, failed } = rows[0];
    process.stderr.write(`\r  ${done + failed} / ${count} finished`);
    if (done + failed >= count) {
      process.stderr.write("\n");
      return { done, failed };
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const STORED_BYTES_WORKER = fileURLToPath(new URL("./lib/stored-bytes-worker.mjs", import.meta.url));

/** @param {Record<string, string>} env */
async function storedBytesWorker(env) {
  const child = spawn(process.execPath, [STORED_BYTES_WORKER], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  await new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => String(chunk).includes("ready") && resolve(undefined));
    child.once("exit", (code) => reject(new Error(`the stored-bytes worker exited with ${code}`)));
  });
  return { child };
}

/** @param {Record<string, string>} env */
async function proceduralWorker(env) {
  const worker = start({ ...env, ROLE: "worker", LOG_LEVEL: "info" });
  for (let waited = 0; !worker.output().includes("worker started"); waited += 50) {
    if (waited > 60_000) throw new Error(`the worker did not start:\n${worker.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return worker;
}

/** @param {{ child: import("node:child_process").ChildProcess }} worker */
async function stopChild(worker) {
  if (worker.child.exitCode !== null) return;
  const exited = new Promise((resolve) => worker.child.once("exit", resolve));
  worker.child.kill("SIGTERM");
  await exited;
}

process.stderr.write(`sharp alone: rendering ${COUNT} generations\n`);
const ceiling = await sharpAlone();
const overhead = await run("platform overhead (stored bytes)", storedBytesWorker, atRate(OFFERED_PER_SECOND));
const rendering = await run("with rendering (procedural)", proceduralWorker, asFastAsAccepted);

const ms = (/** @type {number} */ value) => value.toFixed(0);
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model}, node ${process.version}; ${COUNT} generations per run, worker concurrency ${CONCURRENCY}\n`,
);
console.log("| run | offered | generations/s | create p50 / p99 ms | create → Done p50 / p99 ms | failed |");
console.log("|---|---|---|---|---|---|");
console.log(`| sharp alone, ${COUNT} generations | — | ${ceiling.toFixed(2)} | — | — | — |`);
for (const [result, offered] of /** @type {const} */ ([
  [overhead, `${OFFERED_PER_SECOND}/s`],
  [rendering, "as fast as accepted"],
])) {
  console.log(
    `| ${result.name} | ${offered} | ${result.perSecond.toFixed(2)} | ${ms(result.createP50)} / ${ms(result.createP99)} | ${ms(result.doneP50)} / ${ms(result.doneP99)} | ${result.failed} |`,
  );
}
console.log(
  `\nplatform overhead: p99 ${ms(overhead.doneP99)} ms per generation at ${OFFERED_PER_SECOND}/s offered (target ≤ 100 ms)`,
);
console.log(
  `with rendering: ${((100 * rendering.perSecond) / ceiling).toFixed(0)} % of sharp alone's throughput (target ≥ 80 %)`,
);
