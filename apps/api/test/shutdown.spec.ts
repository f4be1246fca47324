import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, get } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL, uniqueName } from "../../../tests/support/environment.js";
import { requestOnFreshConnection } from "../../../tests/support/fresh-connection.js";
import { apiBase, demoKey, start, stop, WITHOUT_LIMITS } from "../../../tests/support/start-command.mjs";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { until } from "../../../tests/support/until.js";

/** A keep-alive HTTP/1.1 connection read by hand: what the client sees, resets included. */
async function openConnection(port: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  await once(socket, "connect");
  let received = "";
  let ending: "open" | "closed" | "reset" = "open";
  socket.on("data", (chunk) => (received += chunk));
  socket.on("end", () => (ending = "closed"));
  socket.on("error", () => (ending = "reset"));
  return {
    send: (path: string, apiKey: string) =>
      socket.write(`GET ${path} HTTP/1.1\r\nhost: localhost\r\napi-key: ${apiKey}\r\n\r\n`),
    answers: () => received.match(/HTTP\/1\.1 \d{3} [^\r]*/g) ?? [],
    received: () => received,
    ending: () => ending,
  };
}

describe("an API process stopped with SIGTERM", { timeout: 90_000 }, () => {
  let database: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), "imagehub-shutdown-"));
  });
  afterAll(async () => {
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** An API process with the demo account and an empty catalogue, listening on a port the system chose. */
  async function startApi(env: Record<string, string> = {}) {
    const api = start({
      ROLE: "api",
      PORT: "0",
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: uniqueName("shutdown"),
      DATA_DIR: dataDir,
      DEMO_ACCOUNT: "true",
      CATALOGUE_SEED_COUNT: "0",
      ...env,
    });
    return { api, port: Number(new URL(await apiBase(api)).port) };
  }

  it("starts without a warning, answers a request sent on an idle keep-alive connection as it stops, with Connection: close, and exits 0", async () => {
    // Info: the line that says the signal has been taken.
    const { api, port } = await startApi({ LOG_LEVEL: "info" });
    try {
      await answersAsItStops(api, port);
    } finally {
      await stop(api);
    }
  });

  it("resets none of the fresh connections made as the signal comes: each is answered or refused", async () => {
    const { api, port } = await startApi({ ...WITHOUT_LIMITS, SHUTDOWN_PRE_STOP_MS: "5000" });
    try {
      const apiKey = await demoKey(api);
      const exited = stop(api);
      const outcomes = await Promise.all(
        Array.from({ length: FRESH_CONNECTIONS }, () => requestOnFreshConnection(port, apiKey)),
      );
      expect(await exited).toBe(0);
      expect(outcomes.filter((outcome) => outcome !== "answered" && outcome !== "refused")).toEqual([]);
      expect(outcomes).toContain("answered");
    } finally {
      await stop(api);
    }
  });

  it("says it is stopping on /health while it still answers, then stops", async () => {
    const { api, port } = await startApi({ SHUTDOWN_PRE_STOP_MS: "60000", SHUTDOWN_GRACE_MS: "5000" });
    try {
      const apiKey = await demoKey(api);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      api.child.kill("SIGTERM");
      await until(async () => (await fetch(`http://127.0.0.1:${port}/health`)).status === 503, {
        what: "/health to answer 503",
      });
      const served = await fetch(`http://127.0.0.1:${port}/v1/credit`, { headers: { "api-key": apiKey } });
      expect(served.status).toBe(200);
      expect(served.headers.get("connection")).toBe("close");
    } finally {
      api.child.kill("SIGKILL");
      await once(api.child, "exit");
    }
  });

  it("under load from keep-alive clients answers every request it was sent, and exits 0", async () => {
    const { api, port } = await startApi(WITHOUT_LIMITS);
    try {
      const apiKey = await demoKey(api);
      const load = new KeepAliveLoad(port, apiKey, KEEP_ALIVE_CLIENTS);
      await until(() => load.answered >= 20 * KEEP_ALIVE_CLIENTS, { what: "the load to be under way" });
      const answeredBeforeSignal = load.answered;
      const exited = stop(api);
      // A busy client machine: the clients get no time for a while, as a loaded machine's scheduler does to
      // them, and write their next requests only after, on the connections they have.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, CLIENTS_STALLED_MS);
      expect(await exited).toBe(0);
      await load.finished;
      expect(load.failures).toEqual([]);
      expect(load.answered).toBeGreaterThan(answeredBeforeSignal);
      expect(load.refused).toBe(KEEP_ALIVE_CLIENTS);
    } finally {
      await stop(api);
    }
  });
});

const KEEP_ALIVE_CLIENTS = 16;
/** As many as a listen backlog holds when they all arrive at once (44 of 100 were reset without a pre-stop). */
const FRESH_CONNECTIONS = 100;

/**
 * One request on a new connection, read by hand: "answered", "refused" (the server no longer listened: the
 * request was never sent), or how it failed after it was sent (a reset).
 */
/** Longer than the server takes to stop reading, and shorter than its keep-alive timeout. */
const CLIENTS_STALLED_MS = 1_500;

/**
 * Clients that each send one request after another on a keep-alive connection, as fast as they are
 * answered, until the server refuses their connection. A request refused before it was sent is fine; any
 * other error is a request that was written and never answered.
 */
class KeepAliveLoad {
  answered = 0;
  refused = 0;
  readonly failures: string[] = [];
  readonly finished: Promise<void>;

  constructor(
    private readonly port: number,
    private readonly apiKey: string,
    clients: number,
  ) {
    this.finished = Promise.all(Array.from({ length: clients }, () => this.client())).then(() => undefined);
  }

  private async client(): Promise<void> {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (;;) {
        const outcome = await this.send(agent);
        if (outcome === "answered") this.answered += 1;
        else if (outcome === "refused") {
          this.refused += 1;
          return;
        } else {
          this.failures.push(outcome);
          return;
        }
      }
    } finally {
      agent.destroy();
    }
  }

  private send(agent: Agent): Promise<"answered" | "refused" | string> {
    return new Promise((resolve) => {
      const request = get(
        {
          agent,
          host: "127.0.0.1",
          port: this.port,
          path: "/v1/credit",
          headers: { "api-key": this.apiKey },
        },
        (response) => {
          response.resume();
          response.on("end", () => resolve("answered"));
          response.on("error", (error) => resolve(`answer cut: ${error.message}`));
        },
      );
      request.on("error", (error: NodeJS.ErrnoException) =>
        resolve(
          error.code === "ECONNREFUSED"
            ? "refused"
            : `${error.code ?? error.message} on a ${request.reusedSocket ? "reused" : "new"} connection`,
        ),
      );
    });
  }
}

async function answersAsItStops(api: ReturnType<typeof start>, port: number): Promise<void> {
  const apiKey = await demoKey(api);
  // Node prints a process warning (Fastify's FSTWRN004 for an error handler set twice, say) on stderr.
  expect(api.output()).not.toMatch(/Warning/);
  const connection = await openConnection(port);
  connection.send("/v1/credit", apiKey);
  await until(() => connection.answers().length === 1);
  expect(connection.answers()).toEqual(["HTTP/1.1 200 OK"]);

  const exited = stop(api);
  // The connection is idle when the signal comes; the next request follows once it has been taken.
  await until(() => api.output().includes("shutting down"), { what: "the signal to be taken" });
  connection.send("/v1/credit", apiKey);
  expect(await exited).toBe(0);
  expect(connection.answers()).toEqual(["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"]);
  expect(connection.received().split("HTTP/1.1 200 OK")[2]).toMatch(/^connection: close\r$/im);
  expect(connection.ending()).toBe("closed");
}
