// bench:startup: how long the README's start command takes, on the embedded defaults, from process start
// until /v1/api-keys/check answers 200 to the demo key it printed. The first start on an empty data folder
// (database creation, migrations, demo account) and a later start are measured separately.
// Run `npm run build` first (npm run bench:startup does).
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { demoKey, freePort, start, stop } from "../tests/support/start-command.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);

/** @param {Record<string, string>} env */
async function timeToFirstCheck(env) {
  const began = performance.now();
  const started = start(env);
  try {
    const key = await demoKey(started);
    const response = await fetch(`http://127.0.0.1:${env.PORT}/v1/api-keys/check`, {
      headers: { "api-key": key },
    });
    if (response.status !== 200) throw new Error(`check answered ${response.status}`);
    return performance.now() - began;
  } finally {
    await stop(started);
  }
}

const first = [];
const later = [];
for (let run = 0; run < RUNS; run += 1) {
  const dataDir = await mkdtemp(join(tmpdir(), "imagehub-bench-"));
  const env = { DATA_DIR: dataDir, PORT: String(await freePort()), REDIS_PREFIX: `bench-startup-${run}` };
  try {
    first.push(await timeToFirstCheck(env));
    later.push(await timeToFirstCheck(env));
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** @param {number[]} values */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
/** @param {number} ms */
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, node ${process.version}`);
console.log(
  `first start (empty data folder) → check 200: median ${seconds(median(first))} of ${RUNS} [${first.map(seconds).join(", ")}]`,
);
console.log(
  `later start (existing data)     → check 200: median ${seconds(median(later))} of ${RUNS} [${later.map(seconds).join(", ")}]`,
);
