import { type ChildProcess, spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { AppConfig } from "../common/config.js";

export class RedisUnavailableError extends Error {}

/** A redis-server this process started, stopped when the process stops. */
export interface LocalRedis {
  stop(): Promise<void>;
}

/**
 * Makes sure Redis answers at the configured URL. When nothing answers and autostart is on (the default
 * without REDIS_URL), starts `redis-server` (if installed) as a child with its data in `<DATA_DIR>/redis`.
 */
export async function ensureRedis(config: AppConfig, logger: Logger): Promise<LocalRedis | undefined> {
  if (await answers(config.redis.url)) return undefined;
  const how = "set REDIS_URL to a running Redis, or install redis-server (e.g. `apt install redis-server`)";
  if (!config.redis.canAutostart) {
    throw new RedisUnavailableError(`Redis does not answer at ${config.redis.url}: start it or ${how}.`);
  }
  const url = new URL(config.redis.url);
  const dir = join(config.dataDir, "redis");
  await mkdir(dir, { recursive: true });
  const child = spawn(
    "redis-server",
    ["--bind", url.hostname, "--port", url.port || "6379", "--dir", dir, "--appendonly", "yes", "--save", ""],
    { stdio: "ignore" },
  );
  const started = await Promise.race([
    waitUntilAnswers(config.redis.url),
    new Promise<false>((resolve) => child.once("error", () => resolve(false))),
  ]);
  if (!started) {
    child.kill();
    throw new RedisUnavailableError(
      `Redis does not answer at ${config.redis.url} and could not be started: ${how}.`,
    );
  }
  logger.info({ dir, pid: child.pid }, "started a local redis-server");
  return { stop: () => stopChild(child) };
}

async function answers(url: string): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    retryStrategy: () => null,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
  });
  probe.on("error", () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

async function waitUntilAnswers(url: string, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await answers(url)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
