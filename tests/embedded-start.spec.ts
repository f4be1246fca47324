import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueName } from "./support/environment.js";

const MAIN = join(import.meta.dirname, "../apps/api/dist/main.js");

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

interface Started {
  child: ChildProcess;
  output: () => string;
}

/** Runs the start command (`npm start` runs this same file) with a clean environment of its own. */
function start(env: Record<string, string>): Started {
  let output = "";
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  return { child, output: () => output };
}

async function demoKey(started: Started, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const key = /Demo API key:\s+(ih_\S+)/.exec(started.output())?.[1];
    if (key) return key;
    if (started.child.exitCode !== null) throw new Error(`exited early:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no demo key printed within ${timeoutMs} ms:\n${started.output()}`);
}

async function stop(started: Started): Promise<number | null> {
  if (started.child.exitCode !== null) return started.child.exitCode;
  started.child.kill("SIGTERM");
  const [code] = await once(started.child, "exit");
  return code as number | null;
}

describe("the embedded start command", () => {
  let dataDir: string;
  let port: number;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "imagehub-embedded-"));
    port = await freePort();
    env = { DATA_DIR: dataDir, PORT: String(port), REDIS_PREFIX: uniqueName("embedded") };
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it("starts on PGlite, prints a demo key that /v1/api-keys/check accepts, and stops cleanly", async () => {
    const started = start(env);
    try {
      const key = await demoKey(started);
      expect(started.output()).toContain(`http://localhost:${port}/doc`);
      const response = await fetch(`http://127.0.0.1:${port}/v1/api-keys/check`, {
        headers: { "api-key": key },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ email: "demo@imagehub.local", name: "Demo" });
      const credits = await fetch(`http://127.0.0.1:${port}/v1/credit`, { headers: { "api-key": key } });
      expect((await credits.json()).credits.length).toBeGreaterThan(0);
    } finally {
      expect(await stop(started)).toBe(0);
    }
  });

  it("reuses the demo account and its key on the next start", async () => {
    const first = start(env);
    const firstKey = await demoKey(first);
    await stop(first);
    const second = start(env);
    try {
      expect(await demoKey(second)).toBe(firstKey);
      const response = await fetch(`http://127.0.0.1:${port}/v1/api-keys/check`, {
        headers: { "api-key": firstKey },
      });
      expect(response.status).toBe(200);
    } finally {
      await stop(second);
    }
  });

  it("starts redis-server itself when nothing answers and autostart is on", async () => {
    const redisPort = await freePort();
    const started = start({ ...env, REDIS_URL: `redis://127.0.0.1:${redisPort}`, REDIS_AUTOSTART: "true" });
    try {
      const key = await demoKey(started);
      const response = await fetch(`http://127.0.0.1:${port}/health`, { headers: { "api-key": key } });
      expect(await response.json()).toEqual({ status: "ok", checks: { database: "ok", redis: "ok" } });
    } finally {
      expect(await stop(started)).toBe(0);
    }
    // The child redis-server stopped with the process.
    const probe = createServer().listen(redisPort, "127.0.0.1");
    await once(probe, "listening");
    probe.close();
  });

  it("exits with one clear line when Redis cannot be reached", async () => {
    const started = start({ ...env, REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    const [code] = await once(started.child, "exit");
    expect(code).toBe(1);
    expect(started.output().trim()).toMatch(
      /^imagehub: Redis does not answer at redis:\/\/127\.0\.0\.1:\d+: .*REDIS_URL/,
    );
    expect(started.output().trim().split("\n")).toHaveLength(1);
  });

  it("exits naming the variable when the configuration is invalid", async () => {
    const started = start({ ...env, PORT: "eighty" });
    const [code] = await once(started.child, "exit");
    expect(code).toBe(1);
    expect(started.output().trim()).toMatch(/^imagehub: Invalid configuration: PORT: /);
  });
});
