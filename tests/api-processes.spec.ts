import { once } from "node:events";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL, uniqueName } from "./support/environment.js";
import { forkedBy } from "./support/forked-processes.mjs";
import { apiBase, demoKey, freePort, start, stop } from "./support/start-command.mjs";
import { TcpProxy } from "./support/tcp-proxy.js";
import { createTestDatabase, type TestDatabase } from "./support/test-database.js";
import { until } from "./support/until.js";

/** How many established TCP connections to `port` (IPv4) process `pid` holds, from /proc (Linux). */
function connectionsHeld(pid: number, port: number): number {
  const sockets = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const target = (() => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return "";
      }
    })();
    if (target.startsWith("socket:[")) sockets.add(target.slice("socket:[".length, -1));
  }
  const portHex = port.toString(16).toUpperCase().padStart(4, "0");
  return readFileSync(`/proc/${pid}/net/tcp`, "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(
      ([, local, , state, , , , , , inode]) =>
        local?.endsWith(`:${portHex}`) && state === "01" && sockets.has(inode ?? ""),
    ).length;
}

/** Answers the status of GET `url` on a connection of `agent`. */
async function statusOf(url: string, agent: Agent, headers: Record<string, string>): Promise<number> {
  const request = get(url, { agent, headers });
  const [response] = (await once(request, "response")) as [import("node:http").IncomingMessage];
  response.resume();
  await once(response, "end");
  return response.statusCode ?? 0;
}

describe("API_PROCESSES: several API processes on one port", { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let dataDir: string;
  const settings = () => ({
    ROLE: "api",
    API_PROCESSES: "2",
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: uniqueName("processes"),
    PORT: "0",
    DEMO_ACCOUNT: "true",
    DATA_DIR: dataDir,
    LOG_LEVEL: "info",
  });

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), "imagehub-api-processes-"));
  });

  afterAll(async () => {
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("serves from every process, prints one banner, replaces processes that die and stops them all", async () => {
    const started = start(settings());
    try {
      const key = await demoKey(started);
      const base = await apiBase(started);
      const port = Number(new URL(base).port);
      await until(() => started.output().split("Server listening at").length - 1 === 2, {
        what: "both processes listening",
      });
      expect(started.output().split("imagehub is running").length - 1).toBe(1);
      const supervisor = Number(started.child.pid);
      const processes = forkedBy(supervisor);
      expect(processes).toHaveLength(2);

      const spread = async (pids: number[]) => {
        // Eight connections at once: the supervisor hands them out in turn.
        const agent = new Agent({ keepAlive: true });
        const statuses = await Promise.all(
          Array.from({ length: 8 }, () => statusOf(`${base}/v1/api-keys/check`, agent, { "api-key": key })),
        );
        expect(statuses).toEqual(Array(8).fill(200));
        for (const pid of pids) expect(connectionsHeld(pid, port)).toBeGreaterThan(0);
        agent.destroy();
      };
      await spread(processes);

      const [killed, kept] = processes as [number, number];
      process.kill(killed, "SIGKILL");
      await until(
        () => {
          const now = forkedBy(supervisor);
          return now.length === 2 && !now.includes(killed);
        },
        { what: "a new API process" },
      );
      const replaced = forkedBy(supervisor);
      expect(replaced).toContain(kept);
      await until(() => started.output().split("Server listening at").length - 1 === 3, {
        what: "the new process listening",
      });
      await spread(replaced);
      expect(started.output()).toContain("an API process stopped: starting another");

      // Every process down at once: the supervisor stays and starts them again.
      for (const pid of replaced) process.kill(pid, "SIGKILL");
      await until(
        () => {
          const now = forkedBy(supervisor);
          return now.length === 2 && now.every((pid) => !replaced.includes(pid));
        },
        { what: "two new API processes" },
      );
      await until(() => started.output().split("Server listening at").length - 1 === 5, {
        what: "the new processes listening",
      });
      await spread(forkedBy(supervisor));
      expect(started.output().split("imagehub is running").length - 1).toBe(1);

      const running = forkedBy(supervisor);
      expect(await stop(started)).toBe(0);
      for (const pid of running) expect(existsSync(`/proc/${pid}`)).toBe(false);
    } finally {
      await stop(started);
    }
  });

  it("starts a dead process's replacement again, later each time, while PostgreSQL is away", async () => {
    const target = new URL(database.url);
    const proxy = await new TcpProxy({ host: target.hostname, port: Number(target.port) }).start();
    const throughProxy = Object.assign(new URL(database.url), { port: String(proxy.address.port) });
    const started = start({
      ...settings(),
      DEMO_ACCOUNT: "false",
      DATABASE_URL: throughProxy.toString(),
      DATABASE_CONNECT_TIMEOUT_MS: "500",
    });
    const listening = () => started.output().split("Server listening at").length - 1;
    try {
      await until(() => listening() === 2, { what: "both processes listening" });
      await proxy.cut();
      const [killed] = forkedBy(Number(started.child.pid)) as [number];
      process.kill(killed, "SIGKILL");
      // Its replacement cannot reach PostgreSQL and dies before it listens: the next waits twice as long.
      await until(() => started.output().includes('"delayMs":2000'), { what: "a replacement that died" });
      expect(started.child.exitCode).toBeNull();
      await proxy.restore();
      await until(() => listening() === 3, { what: "a replacement listening" });
      expect(await stop(started)).toBe(0);
    } finally {
      await stop(started);
      await proxy.cut();
    }
  });

  it("stops them all and exits 1 when a process cannot start", async () => {
    // Nothing listens there: each process fails to reach PostgreSQL before it listens.
    const unreachable = `postgresql://postgres@127.0.0.1:${await freePort()}/imagehub`;
    const started = start({ ...settings(), DATABASE_URL: unreachable, DATABASE_CONNECT_TIMEOUT_MS: "500" });
    const [code] = await once(started.child, "exit");
    expect(code).toBe(1);
    expect(started.output()).toContain("an API process stopped while they were starting");
  });
});
