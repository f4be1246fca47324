// The API under load: started as the README's start command starts it, on the scratch catalogue.
import { apiBase, demoKey, start, WITHOUT_LIMITS } from "../../tests/support/start-command.mjs";
import { BENCH_DATABASE_URL } from "./scratch-catalogue.mjs";

/** Node's options that make a started process write a CPU profile to BENCH_CPU_PROF_DIR when it stops. */
export function cpuProfiling() {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
}

/** @typedef {{ started: ReturnType<typeof start>, key: string, base: string }} RunningApi */

/**
 * Starts the API on the scratch database; LOG_LEVEL=trace makes it log every statement it sends, and
 * BENCH_CPU_PROF_DIR profiles it.
 * @param {string} logLevel
 * @param {Record<string, string>} [env] more configuration
 * @returns {Promise<RunningApi>}
 */
export async function startApi(logLevel, env = {}) {
  const started = start(
    {
      DATABASE_URL: BENCH_DATABASE_URL,
      PORT: "0",
      ROLE: "api",
      DEMO_ACCOUNT: "true",
      DATA_DIR: "/tmp/imagehub-bench",
      REDIS_PREFIX: "bench",
      LOG_LEVEL: logLevel,
      ...WITHOUT_LIMITS,
      ...env,
      // Settings to compare (e.g. {"DATABASE_POOL_SIZE":"10"}), given to every API a bench starts.
      ...JSON.parse(process.env.BENCH_API_ENV ?? "{}"),
    },
    cpuProfiling(),
  );
  return { started, key: await demoKey(started), base: await apiBase(started) };
}
