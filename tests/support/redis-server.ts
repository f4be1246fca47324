import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { until } from "./until.js";

/** A redis-server of the test's own on `port`, without persistence: killed, it restarts empty. */
export async function startRedisServer(port: number): Promise<ChildProcess> {
  const redis = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  await until(async () => {
    const probe = spawn("redis-cli", ["-p", String(port), "ping"], { stdio: "ignore" });
    const [code] = await once(probe, "exit");
    return code === 0;
  });
  return redis;
}

/** Kills it at once (its data goes with it) and waits for it to be gone. */
export async function killRedisServer(redis: ChildProcess): Promise<void> {
  if (redis.exitCode !== null || redis.signalCode !== null) return;
  redis.kill("SIGKILL");
  await once(redis, "exit");
}
