import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL, uniqueName } from "../../../tests/support/environment.js";
import { demoKey, freePort, start, stop } from "../../../tests/support/start-command.mjs";
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

  it("answers a request sent on an idle keep-alive connection as it stops, with Connection: close, and exits 0", async () => {
    const port = await freePort();
    const api = start({
      ROLE: "api",
      PORT: String(port),
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: uniqueName("shutdown"),
      DATA_DIR: dataDir,
      DEMO_ACCOUNT: "true",
      CATALOGUE_SEED_COUNT: "0",
    });
    try {
      await answersAsItStops(api, port);
    } finally {
      await stop(api);
    }
  });
});

async function answersAsItStops(api: ReturnType<typeof start>, port: number): Promise<void> {
  const apiKey = await demoKey(api);
  const connection = await openConnection(port);
  connection.send("/v1/credit", apiKey);
  await until(() => connection.answers().length === 1);
  expect(connection.answers()).toEqual(["HTTP/1.1 200 OK"]);

  const exited = stop(api);
  // The connection is idle when the signal comes; the next request follows it closely.
  await new Promise((resolve) => setTimeout(resolve, 100));
  connection.send("/v1/credit", apiKey);
  expect(await exited).toBe(0);
  expect(connection.answers()).toEqual(["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"]);
  expect(connection.received().split("HTTP/1.1 200 OK")[2]).toMatch(/^connection: close\r$/im);
  expect(connection.ending()).toBe("closed");
}
