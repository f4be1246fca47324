import { execFile } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { ImageGeneration } from "@imagehub/domain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueName } from "./support/environment.js";
import { COMPLETED_LIFECYCLE } from "./support/generation-events.js";
import { readJson } from "./support/json.js";
import { apiBase, demoKey, freePort, start, stop } from "./support/start-command.mjs";
import { WebhookReceiver } from "./support/webhook-receiver.js";

// A first start creates and migrates a PGlite database: give each start the minute demoKey waits, and more.
describe("the embedded start command", { timeout: 120_000 }, () => {
  let dataDir: string;
  let env: Record<string, string>;
  /** The demo key the first start printed. */
  let firstDemoKey: string;
  /** The admin CLI's `account invite`, on the embedded database. */
  const invite = (email: string) =>
    promisify(execFile)(
      process.execPath,
      [
        join(import.meta.dirname, "../apps/api/dist/admin/admin.cli.js"),
        "account",
        "invite",
        "--email",
        email,
      ],
      { env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir } },
    );

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "imagehub-embedded-"));
    env = {
      DATA_DIR: dataDir,
      PORT: "0",
      REDIS_PREFIX: uniqueName("embedded"),
    };
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it("starts on PGlite with a seeded catalogue, prints a demo key that /v1/api-keys/check accepts, and stops cleanly", async () => {
    const started = start(env);
    try {
      const key = await demoKey(started);
      firstDemoKey = key;
      const base = await apiBase(started);
      expect(started.output()).toContain(`${base.replace("127.0.0.1", "localhost")}/doc`);
      // The banner's one-time link signs the demo account in to the web app, once.
      const link = /Demo sign-in:\s+http:\/\/localhost:\d+\/link#(\S+)/.exec(started.output())?.[1];
      const redeem = () =>
        fetch(`${base}/account/links/redeem`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ token: link }),
        });
      const redeemed = await redeem();
      expect(redeemed.status).toBe(200);
      expect(await readJson(redeemed)).toMatchObject({ account: { email: "demo@imagehub.local" } });
      expect(redeemed.headers.get("set-cookie")).toMatch(/^imagehub_session=\S+; .*HttpOnly; SameSite=Lax$/);
      expect((await redeem()).status).toBe(410);
      const page = await fetch(`${base}/`);
      expect(page.headers.get("content-type")).toContain("text/html");
      const response = await fetch(`${base}/v1/api-keys/check`, {
        headers: { "api-key": key },
      });
      expect(response.status).toBe(200);
      expect(await readJson(response)).toMatchObject({ email: "demo@imagehub.local", name: "Demo" });
      const credits = await fetch(`${base}/v1/credit`, { headers: { "api-key": key } });
      expect((await readJson(credits)).credits.length).toBeGreaterThan(0);
      const search = await fetch(`${base}/v1/images/search`, {
        method: "POST",
        headers: { "api-key": key, "content-type": "application/json" },
        // Three words: classes of bounded counts, found through the weighted terms' GIN index.
        body: JSON.stringify({ search: "forest lake mountain", limit: 1 }),
      });
      const found = await readJson(search);
      expect(found.filteredResults).toBeGreaterThan(0);
      const preview = await fetch(found.images[0].url.replace(base.replace("127.0.0.1", "localhost"), base));
      expect(preview.headers.get("content-type")).toBe("image/jpeg");
    } finally {
      expect(await stop(started)).toBe(0);
    }
  });

  describe("started again on the same data folder", () => {
    let started: ReturnType<typeof start>;
    let base: string;
    let key: string;

    beforeAll(async () => {
      // Webhooks to the test's own receiver on loopback, over plain HTTP.
      started = start({ ...env, WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" });
      key = await demoKey(started);
      base = await apiBase(started);
    });
    afterAll(async () => {
      expect(await stop(started)).toBe(0);
    });

    it("reuses the demo account and its key", async () => {
      expect(key).toBe(firstDemoKey);
      const response = await fetch(`${base}/v1/api-keys/check`, { headers: { "api-key": key } });
      expect(response.status).toBe(200);
    });

    it("keeps its database to itself: the admin CLI refuses to open it while the server runs", async () => {
      const refused = await invite("ada@example.com").then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(refused?.code).toBe(1);
      expect(refused?.stderr).toMatch(
        /open in another process \(pid \d+\), such as a running imagehub server: stop it first/,
      );
    });

    it("runs a generation and delivers its webhooks on PGlite", async () => {
      const receiver = await new WebhookReceiver().start();
      try {
        const post = (path: string, body: unknown) =>
          fetch(`${base}${path}`, {
            method: "POST",
            headers: { "api-key": key, "content-type": "application/json" },
            body: JSON.stringify(body),
          });
        const subscribed = await post("/v1/api-keys/webhook/subscribe", {
          url: receiver.url,
          events: ["print.created", "print.active", "print.progress", "print.completed"],
        });
        expect(subscribed.status).toBe(201);
        const generation = await post("/v1/image-generations", {
          name: "Fox",
          prompt: "a red fox in the snow",
          mode: "simple",
          params: [{ name: "format", value: "16:9" }],
          tags: ["winter", "fox"],
          metaData: { team: "t1" },
        });
        expect(generation.status).toBe(201);
        const received = await receiver.waitFor(COMPLETED_LIFECYCLE.length);
        expect(received.map((request) => request.envelope.type).sort()).toEqual(
          [...COMPLETED_LIFECYCLE].sort(),
        );
        // The create and the worker's steps go to PGlite on the driver: every field survives.
        const completed = received.find((request) => request.envelope.type === "print.completed");
        expect(completed?.envelope.data).toMatchObject({
          params: [{ name: "format", value: "16:9" }],
          tags: ["winter", "fox"],
          metaData: { team: "t1" },
          nbImages: 4,
        });
        // Buying one debits the demo account's credits through Prisma's PGlite adapter.
        const [image] = (completed?.envelope.data as ImageGeneration | undefined)?.images ?? [];
        expect((await post("/v1/images/buy", { id: image?.id })).status).toBe(200);
      } finally {
        await receiver.stop();
      }
    });
  });

  it("opens its database to the admin CLI once the server has stopped", async () => {
    expect((await invite("ada@example.com")).stdout).toMatch(/link: http:\/\/localhost:\d+\/welcome#/);
  });

  it("starts redis-server itself when nothing answers and autostart is on", async () => {
    const redisPort = await freePort();
    const started = start({ ...env, REDIS_URL: `redis://127.0.0.1:${redisPort}`, REDIS_AUTOSTART: "true" });
    try {
      const key = await demoKey(started);
      const response = await fetch(`${await apiBase(started)}/health`, { headers: { "api-key": key } });
      expect(await readJson(response)).toEqual({ status: "ok", checks: { database: "ok", redis: "ok" } });
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
