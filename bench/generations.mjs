// bench:generations: generations through the API and real BullMQ workers, until all are Done.
//  1. platform overhead: a worker whose engine hands back stored bytes, COUNT creates offered at 20/s,
//     create → Done per generation;
//  2. with rendering against sharp alone, interleaved in slices on one running platform: sharp alone (the
//     procedural engine rendering a slice's requests in a loop, no platform: the ceiling), then the real
//     worker and the procedural engine on the same requests, created as fast as the API takes them, and so
//     on (A/B/A/B…/A), so that a busy machine slows both alike. Each platform slice is compared with the mean
//     of the two sharp slices around it; the median and spread of those ratios are the result.
// Run through `npm run bench:generations` (it builds first). Needs PostgreSQL and Redis. BENCH_GENERATIONS
// (default 2,000), BENCH_SLICES (platform slices, default 5), BENCH_SLICE_GENERATIONS (default 200) and
// BENCH_CONCURRENCY (the worker's and the loop's, default 4) adjust it. Each run's and slice's CPU is measured
// per process (the bench's own, which is sharp alone's; the worker, the API, PostgreSQL, Redis);
// BENCH_CPU_PROF_DIR: the APIs and the workers write CPU profiles (node --cpu-prof) there when they stop.
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import http from "node:http";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import pg from "pg";
import { ProceduralEngine } from "../apps/api/dist/engines/procedural.engine.js";
import { freePort, start, stop, WITHOUT_LIMITS } from "../tests/support/start-command.mjs";
import { cpuProfiling } from "./lib/api.mjs";
import { freshDatabase } from "./lib/fresh-database.mjs";
import { createBody, engineRequest } from "./lib/generation-requests.mjs";
import { measureCpu } from "./lib/process-cpu.mjs";
import { percentile } from "./lib/stats.mjs";

const COUNT = Number(process.env.BENCH_GENERATIONS ?? 2000);
const SLICES = Number(process.env.BENCH_SLICES ?? 5);
const SLICE_GENERATIONS = Number(process.env.BENCH_SLICE_GENERATIONS ?? 200);
const OFFERED_PER_SECOND = 20;
/** Generations a worker runs at once (GENERATION_CONCURRENCY, default 4), and the loop's too. */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
/** Generations run before measuring, so that connections, caches and the JIT are warm. */
const WARM_UP = 100;
const CREATORS = 8;
const DATABASE_URL =
  process.env.BENCH_GENERATIONS_DATABASE_URL ??
  "postgresql://postgres@127.0.0.1:5432/imagehub_bench_generations";
const DATABASE_NAME = new URL(DATABASE_URL).pathname.slice(1);
/**
 * The image files: a folder of their own for each platform run, all removed once the bench ends. Removing a
 * run's thousands of files right before the next run would have the file system's inode allocation skip
 * the recently deleted ones (ext4 passes over inodes freed in the last 30 s) for every file of that run.
 */
const DATA_ROOT = `/tmp/${DATABASE_NAME}`;
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** Renders the images of generations firstIndex… (count of them) with CONCURRENCY loops; answers generations/s. */
async function sharpAlone(/** @type {number} */ count, /** @type {number} */ firstIndex) {
  const engine = new ProceduralEngine();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let index = next++; index < count; index = next++) {
        for await (const _ of engine.generate(engineRequest(firstIndex + index), {
          signal: new AbortController().signal,
        })) {
          // Rendering is the work; the bytes go.
        }
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/** @typedef {{ id: string, sentAt: number, answeredAt: number }} Created */
/** @typedef {{ child: import("node:child_process").ChildProcess }} Worker */

/** @typedef {{ name: string, failed: number, perSecond: number, createP50: number, createP99: number, doneP50: number, doneP99: number }} RunResult */
/** @typedef {(base: string, key: string, count: number, firstIndex: number) => Promise<Created[]>} Offer */

/** @typedef {Awaited<ReturnType<typeof measureCpu<"api" | "worker" | "redis">>>} SliceCpu */
/** @typedef {<R>(work: () => Promise<R>) => Promise<{ result: R, cpu: SliceCpu }>} Measure */

/**
 * The API (ROLE=api) with an unlimited demo account and a worker process started by `startWorker`, warmed
 * up; `use` runs generations on it with `generate(count, firstIndex, offer)`, and measures the CPU each
 * process takes while some work runs with `measure(work)`.
 * @template T
 * @param {string} name
 * @param {(env: Record<string, string>) => Promise<Worker>} startWorker
 * @param {(generate: (count: number, firstIndex: number, offer: Offer) => Promise<RunResult>, measure: Measure) => Promise<T>} use
 * @returns {Promise<T>}
 */
async function withPlatform(name, startWorker, use) {
  await freshDatabase(DATABASE_URL);
  const prefix = `bench-generations-${Date.now().toString(36)}`;
  const env = {
    DATABASE_URL,
    REDIS_PREFIX: prefix,
    DATA_DIR: `${DATA_ROOT}/${prefix}`,
    LOG_LEVEL: "warn",
    GENERATION_CONCURRENCY: String(CONCURRENCY),
    ...WITHOUT_LIMITS,
  };
  const port = await freePort();
  const api = start({ ...env, ROLE: "api", PORT: String(port), DEMO_ACCOUNT: "true" }, cpuProfiling());
  const worker = await startWorker(env);
  const db = new pg.Client({ connectionString: DATABASE_URL });
  const redis = new Redis(REDIS_URL);
  try {
    const redisPid = Number(/process_id:(\d+)/.exec(await redis.info("server"))?.[1]);
    /** @type {Measure} */
    const measure = async (work) => {
      /** @type {Awaited<ReturnType<typeof work>> | undefined} */
      let result;
      const cpu = await measureCpu(
        db,
        DATABASE_NAME,
        { api: Number(api.child.pid), worker: Number(worker.child.pid), redis: redisPid },
        async () => {
          result = await work();
        },
      );
      return { result: /** @type {Awaited<ReturnType<typeof work>>} */ (result), cpu };
    };
    const key = await demoKeyOf(api);
    await db.connect();
    await db.query("UPDATE credit_buckets SET unlimited = true");
    const base = `http://127.0.0.1:${port}`;
    let finished = 0;
    /** @type {(count: number, firstIndex: number, offer: Offer) => Promise<RunResult>} */
    const generate = async (count, firstIndex, offer) => {
      const created = await offer(base, key, count, firstIndex);
      finished += created.length;
      const done = await allDone(db, finished);
      const { rows } = await db.query(
        "SELECT generation_id AS id, created_at FROM outbox_events WHERE type = 'print.completed' AND generation_id = ANY($1::uuid[])",
        [created.map((entry) => entry.id)],
      );
      const doneAt = new Map(rows.map((row) => [row.id, row.created_at.getTime()]));
      const latencies = created.map((entry) => (doneAt.get(entry.id) ?? Number.NaN) - entry.sentAt);
      const first = Math.min(...created.map((entry) => entry.sentAt));
      const last = Math.max(...created.map((entry) => doneAt.get(entry.id) ?? Number.NaN));
      const answered = created.map((entry) => entry.answeredAt - entry.sentAt);
      return {
        name,
        failed: done.failed,
        perSecond: created.length / ((last - first) / 1000),
        createP50: percentile(answered, 50),
        createP99: percentile(answered, 99),
        doneP50: percentile(latencies, 50),
        doneP99: percentile(latencies, 99),
      };
    };
    process.stderr.write(`${name}: warming up with ${WARM_UP} generations\n`);
    await generate(WARM_UP, COUNT + SLICES * SLICE_GENERATIONS, asFastAsAccepted);
    return await use(generate, measure);
  } finally {
    redis.disconnect();
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
 * The creates' connections, kept open between them. node:http rather than fetch: its CPU a create (about
 * 0.4 ms against fetch's 1.3–2.0, measured on this bench's creates) is the load generator's, taken from the
 * same two cores as the platform it loads.
 */
const CREATE_AGENT = new http.Agent({ keepAlive: true });

/**
 * @param {string} base
 * @param {string} key
 * @param {number} index
 * @returns {Promise<Created>}
 */
async function create(base, key, index) {
  const sentAt = Date.now();
  const body = JSON.stringify(createBody(index));
  const { status, text } = await new Promise((resolve, reject) => {
    const request = http.request(
      `${base}/v1/image-generations`,
      {
        method: "POST",
        agent: CREATE_AGENT,
        headers: {
          "api-key": key,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode, text }));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
  if (status !== 201) throw new Error(`create answered ${status}: ${text}`);
  const { id } = /** @type {{ id: string }} */ (JSON.parse(text));
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
  const child = spawn(process.execPath, [...cpuProfiling(), STORED_BYTES_WORKER], {
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
  const worker = start({ ...env, ROLE: "worker", LOG_LEVEL: "info" }, cpuProfiling());
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

/** The 1-minute load average now: how busy the (possibly shared) machine was. */
const load = () => loadavg()[0]?.toFixed(1) ?? "—";

await rm(DATA_ROOT, { recursive: true, force: true });
process.stderr.write(`platform overhead: ${COUNT} generations offered at ${OFFERED_PER_SECOND}/s\n`);
const overhead = await withPlatform(
  "platform overhead (stored bytes)",
  storedBytesWorker,
  async (generate, measure) => {
    const { result, cpu } = await measure(() => generate(COUNT, 0, atRate(OFFERED_PER_SECOND)));
    return { ...result, load: load(), cpu };
  },
);

/** @typedef {{ perSecond: number, load: string, cpu: SliceCpu }} SharpSlice */
/** @typedef {RunResult & { load: string, cpu: SliceCpu }} PlatformSlice */
/** @type {{ sharp: SharpSlice[], slices: { platform: PlatformSlice, ratio: number }[] }} */
const rendering = await withPlatform(
  "with rendering (procedural)",
  proceduralWorker,
  async (generate, measure) => {
    /** @type {SharpSlice[]} */
    const sharp = [];
    /** @type {PlatformSlice[]} */
    const platform = [];
    const sharpSlice = async (/** @type {number} */ slice) => {
      process.stderr.write(`sharp alone, slice ${slice + 1}\n`);
      const { result, cpu } = await measure(() => sharpAlone(SLICE_GENERATIONS, slice * SLICE_GENERATIONS));
      sharp.push({ perSecond: result, load: load(), cpu });
    };
    await sharpSlice(0);
    for (let slice = 0; slice < SLICES; slice++) {
      process.stderr.write(`with rendering, slice ${slice + 1}\n`);
      const { result, cpu } = await measure(() =>
        generate(SLICE_GENERATIONS, slice * SLICE_GENERATIONS, asFastAsAccepted),
      );
      platform.push({ ...result, load: load(), cpu });
      await sharpSlice(slice + 1);
    }
    return {
      sharp,
      slices: platform.map((result, index) => {
        const around =
          ((sharp[index]?.perSecond ?? Number.NaN) + (sharp[index + 1]?.perSecond ?? Number.NaN)) / 2;
        return { platform: result, ratio: result.perSecond / around };
      }),
    };
  },
);
const { slices } = rendering;
await rm(DATA_ROOT, { recursive: true, force: true });

const ms = (/** @type {number} */ value) => value.toFixed(0);
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model}, node ${process.version}; worker concurrency ${CONCURRENCY}\n`,
);
console.log(
  "| run | offered | generations/s | create p50 / p99 ms | create → Done p50 / p99 ms | failed | load average |",
);
console.log("|---|---|---|---|---|---|---|");
console.log(
  `| ${overhead.name}, ${COUNT} generations | ${OFFERED_PER_SECOND}/s | ${overhead.perSecond.toFixed(2)} | ${ms(overhead.createP50)} / ${ms(overhead.createP99)} | ${ms(overhead.doneP50)} / ${ms(overhead.doneP99)} | ${overhead.failed} | ${overhead.load} |`,
);
console.log(
  `\nplatform overhead: p99 ${ms(overhead.doneP99)} ms per generation at ${OFFERED_PER_SECOND}/s offered (target ≤ 100 ms)\n`,
);
console.log(`Interleaved slices of ${SLICE_GENERATIONS} generations (platform: as fast as accepted):\n`);
console.log(
  "| slice | sharp alone before, generations/s | with rendering, generations/s | ratio to the sharp slices around it | load average |",
);
console.log("|---|---|---|---|---|");
slices.forEach(({ platform, ratio }, index) => {
  console.log(
    `| ${index + 1} | ${rendering.sharp[index]?.perSecond.toFixed(2)} | ${platform.perSecond.toFixed(2)} | ${(100 * ratio).toFixed(0)} % | ${platform.load} |`,
  );
});
console.log(
  "\nCPU per generation, ms, by process (medians over the slices; the bench's own is sharp alone's rendering, or the platform's creates and polls):\n",
);
console.log("| run | bench | worker | API | PostgreSQL | Redis | in all | machine busy |");
console.log("|---|---|---|---|---|---|---|---|");
for (const [name, measured, generations] of /** @type {const} */ ([
  ["platform overhead (stored bytes)", [overhead.cpu], COUNT],
  ["sharp alone", rendering.sharp.map((slice) => slice.cpu), SLICE_GENERATIONS],
  ["with rendering", slices.map((slice) => slice.platform.cpu), SLICE_GENERATIONS],
])) {
  const perGeneration = (/** @type {(cpu: SliceCpu) => number} */ ms) =>
    percentile(
      measured.map((cpu) => ms(cpu) / generations),
      50,
    ).toFixed(1);
  const inAll = (/** @type {SliceCpu} */ cpu) =>
    cpu.loadGenerator + cpu.servers.worker + cpu.servers.api + cpu.postgres + cpu.servers.redis;
  const busy = percentile(
    measured.map((cpu) => 100 * cpu.machineBusy),
    50,
  ).toFixed(0);
  console.log(
    `| ${name} | ${perGeneration((cpu) => cpu.loadGenerator)} | ${perGeneration((cpu) => cpu.servers.worker)} | ${perGeneration((cpu) => cpu.servers.api)} | ${perGeneration((cpu) => cpu.postgres)} | ${perGeneration((cpu) => cpu.servers.redis)} | ${perGeneration(inAll)} | ${busy} % |`,
  );
}
const ratios = slices.map((slice) => 100 * slice.ratio);
console.log(
  `\nwith rendering: median ${percentile(ratios, 50).toFixed(0)} % of sharp alone's throughput over ${ratios.length} slices (spread ${Math.min(...ratios).toFixed(0)}–${Math.max(...ratios).toFixed(0)} %; target ≥ 90 %)`,
);
