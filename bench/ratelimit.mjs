// bench:ratelimit: one key floods 1,000 generation creates in 10 s while another account reads its credits
// (GET /v1/credit, 8 a second); that account's p50/p99 idle and during the flood, with the default rate
// limits and with none. An API process (ROLE=api) on PostgreSQL and Redis: what it accepts waits in the
// queue for workers, which run elsewhere in a deployment; BENCH_WITH_WORKER=true starts one beside it, on
// the same cores. The flood comes from a process of its own, as another client's would. Then, with the
// flooding key's budget spent, how fast the API refuses its creates beside a route that does nothing.
// Run through `npm run bench:ratelimit` (it builds first). Needs PostgreSQL and Redis.
import { execFile } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
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
const READS_PER_SECOND = 8;
const WITH_WORKER = process.env.BENCH_WITH_WORKER === "true";
const DATABASE_URL =
  process.env.BENCH_RATELIMIT_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/imagehub_bench_ratelimit";
const DATA_DIR = "/tmp/imagehub-bench-ratelimit";
const ADMIN_CLI = join(import.meta.dirname, "../apps/api/dist/admin/admin.cli.js");
const FLOOD_CLIENT = join(import.meta.dirname, "lib/flood.mjs");

/**
 * CPU seconds (user and system) a process has used so far, from /proc.
 * @param {number | undefined} pid
 */
async function cpuSeconds(pid) {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]?.split(" ") ?? [];
  // utime and stime, the 12th and 13th fields after the command, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** @param {string} base @param {string} key */
function readCredits(base, key) {
  return () => fetch(`${base}/v1/credit`, { headers: { "api-key": key } });
}

/** @param {{ status: number, ms: number }[]} outcomes */
function latencies(outcomes) {
  const ok = outcomes.filter((outcome) => outcome.status === 200).map((outcome) => outcome.ms);
  return { p50: percentile(ok, 50), p99: percentile(ok, 99), failed: outcomes.length - ok.length };
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
  const api = start({ ...env, ROLE: "api", PORT: String(port), DEMO_ACCOUNT: "true" });
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
    const reader = JSON.parse((await admin("key", "create", "--email", "reader@example.test")).stdout).key;
    const base = `http://127.0.0.1:${port}`;
    const read = readCredits(base, reader);

    await paced(READS_PER_SECOND * 2, 2, read);
    process.stderr.write(`${name}: idle reads\n`);
    const idle = latencies(await paced(READS_PER_SECOND * FLOOD_SECONDS, FLOOD_SECONDS, read));
    process.stderr.write(`${name}: flood of ${FLOOD} creates\n`);
    const cpuBefore = await cpuSeconds(api.child.pid);
    const [flood, during] = await Promise.all([
      promisify(execFile)(process.execPath, [
        FLOOD_CLIENT,
        base,
        flooder,
        String(FLOOD),
        String(FLOOD_SECONDS),
      ]),
      paced(READS_PER_SECOND * FLOOD_SECONDS, FLOOD_SECONDS, read),
    ]);
    const apiCpu = (await cpuSeconds(api.child.pid)) - cpuBefore;
    const { statuses, firstError } = JSON.parse(flood.stdout);
    if (firstError) process.stderr.write(`${name}: a create got no answer: ${firstError}\n`);
    const uncounted = api.output().split("rate limits not applied").length - 1;
    // How fast the API refuses a spent key's creates, beside a route that does nothing (its capacity).
    const refusals = statuses["429"]
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
    return { name, idle, during: latencies(during), statuses, uncounted, apiCpu, refusals, noop };
  } finally {
    await db.end();
    await stop(api);
    if (worker) await stop(worker);
  }
}

const results = [await run("default limits", {}), await run("no limits", WITHOUT_LIMITS)];
process.stdout.write(
  `\nOne key: ${FLOOD} generation creates in ${FLOOD_SECONDS} s; another account: GET /v1/credit ${READS_PER_SECOND}/s; ${WITH_WORKER ? "API and worker" : "API alone"}\n\n`,
);
process.stdout.write(
  "| limits | creates answered | other key idle p50 / p99 (ms) | during the flood p50 / p99 (ms) | p99 during / idle | API CPU during the flood |\n",
);
process.stdout.write("| --- | --- | --- | --- | --- | --- |\n");
for (const { name, idle, during, statuses, uncounted, apiCpu } of results) {
  const answered = Object.entries(statuses)
    .map(([status, count]) => `${count} × ${status === "0" ? "no answer" : status}`)
    .join(", ");
  const failed = idle.failed + during.failed > 0 ? ` (${idle.failed + during.failed} reads failed)` : "";
  if (uncounted > 0)
    process.stderr.write(`${name}: ${uncounted} warnings of requests let through uncounted\n`);
  process.stdout.write(
    `| ${name} | ${answered} | ${idle.p50.toFixed(1)} / ${idle.p99.toFixed(1)} | ${during.p50.toFixed(1)} / ${during.p99.toFixed(1)}${failed} | ${(during.p99 / idle.p99).toFixed(2)}× | ${apiCpu.toFixed(2)} s |\n`,
  );
}
for (const { name, refusals, noop } of results) {
  if (!refusals || !noop) continue;
  process.stdout.write(
    `\n${name}: a spent key's creates refused at ${Math.round(refusals.rate)} req/s (p99 ${refusals.p99} ms), /health/live at ${Math.round(noop.rate)} req/s (p99 ${noop.p99} ms); ${CONNECTIONS} connections, 5 s each\n`,
  );
}
