import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { verifyWebhook } from "@imagehub/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL, uniqueName } from "./support/environment.js";
import { RoundRobinProxy } from "./support/round-robin-proxy.js";
import { type LocalS3, startS3Server, storageOn } from "./support/s3-server.mjs";
import { demoKey, freePort, start, stop } from "./support/start-command.mjs";
import { createTestDatabase, type TestDatabase } from "./support/test-database.js";
import { until } from "./support/until.js";
import { WebhookReceiver } from "./support/webhook-receiver.js";

const GENERATIONS = 6;
/** Per worker: with 2 workers, 4 generations in Processing at once means each worker holds 2. */
const CONCURRENCY = 2;
const EVENTS = ["print.created", "print.active", "print.progress", "print.completed", "print.failed"];

interface Generation {
  id: string;
  status: number;
  nbImages: number;
}

/**
 * docker-compose.yml's topology as processes: 2 API processes (ROLE=api) behind a round-robin proxy and
 * 2 workers (ROLE=worker), on one PostgreSQL database, one Redis prefix and one S3 bucket (s3rver).
 */
describe("imagehub scaled out over API and worker processes", { timeout: 180_000 }, () => {
  let database: TestDatabase;
  let s3: LocalS3;
  const proxy = new RoundRobinProxy();
  const receiver = new WebhookReceiver(() => ({ status: 204 }));
  const processes: ReturnType<typeof start>[] = [];
  let workers: ReturnType<typeof start>[];
  let apiKey: string;
  let dataDir: string;

  const send = async <Answer>(method: string, path: string, body?: unknown) => {
    const response = await fetch(`${proxy.url}${path}`, {
      method,
      headers: { "api-key": apiKey, ...(body !== undefined && { "content-type": "application/json" }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Answer };
  };
  const query = async <Row>(sql: string, values: unknown[] = []): Promise<Row[]> => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(sql, values)).rows as Row[];
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    s3 = await startS3Server("imagehub-scale-out");
    await proxy.start();
    await receiver.start();
    const shared = {
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: uniqueName("scale"),
      PUBLIC_BASE_URL: proxy.url,
      ...storageOn(s3),
      // Every API process signs and checks the download links with the same secret.
      LINK_SECRET: uniqueName("link-secret-of-the-whole-deployment"),
      DEMO_ACCOUNT: "false",
      CATALOGUE_SEED_COUNT: "0",
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      // A killed worker's generations and deliveries are taken over within seconds.
      GENERATION_LOCK_SECONDS: "2",
      WEBHOOK_SWEEP_SECONDS: "2",
      PROCEDURAL_IMAGE_DELAY_MS: "300",
      GENERATION_CONCURRENCY: String(CONCURRENCY),
    };
    const ports = [await freePort(), await freePort()];
    // One folder for all, as the compose file's shared volume (only the demo key is kept there with S3).
    dataDir = await mkdtemp(join(tmpdir(), "imagehub-scale-out-"));
    // The first API seeds the catalogue and creates the demo account; the other processes share them.
    const apis = ports.map((port, index) =>
      start({
        ...shared,
        ROLE: "api",
        PORT: String(port),
        ...(index === 0 && { DEMO_ACCOUNT: "true", CATALOGUE_SEED_COUNT: "20" }),
        DATA_DIR: dataDir,
      }),
    );
    workers = [0, 1].map(() =>
      start({
        ...shared,
        ROLE: "worker",
        LOG_LEVEL: "info",
        DATA_DIR: dataDir,
      }),
    );
    processes.push(...apis, ...workers);
    proxy.backends = ports.map((port) => `http://127.0.0.1:${port}`);
    apiKey = await demoKey(apis[0] as ReturnType<typeof start>, 120_000);
    for (const [index, started] of [...apis, ...workers].entries()) {
      const ready = index < apis.length ? "imagehub is running" : '"msg":"worker started"';
      await until(() => started.output().includes(ready), { timeoutMs: 120_000, what: ready });
    }
  });

  afterAll(async () => {
    for (const started of processes) await stop(started);
    await proxy.stop();
    await receiver.stop();
    await s3?.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("spreads searches, buys and generations over both APIs, and survives a worker killed mid-generation", async () => {
    const { status, body: subscribed } = await send<{ secret: string }>(
      "POST",
      "/v1/api-keys/webhook/subscribe",
      {
        url: receiver.url,
        events: EVENTS,
      },
    );
    expect(status).toBe(201);

    const searches: { images: { id: string }[] }[] = [];
    for (let index = 0; index < 4; index += 1) {
      const search = await send<{ images: { id: string }[] }>("POST", "/v1/images/search", {});
      expect(search.status).toBe(200);
      searches.push(search.body);
    }
    const links: string[] = [];
    for (const image of searches[0]?.images.slice(0, 2) ?? []) {
      const bought = await send<{ urlFull: string }>("POST", "/v1/images/buy", { id: image.id });
      expect(bought.status).toBe(200);
      links.push(bought.body.urlFull);
    }
    for (const link of links) {
      // The clean file, rendered and stored in S3 by whichever API serves the link.
      const file = await fetch(link);
      expect(file.status, await file.clone().text()).toBe(200);
      expect(file.headers.get("content-type")).toBe("image/jpeg");
    }

    const created: string[] = [];
    for (let index = 0; index < GENERATIONS; index += 1) {
      const generation = await send<{ id: string }>("POST", "/v1/image-generations", {
        name: `Fox ${index}`,
        prompt: `a red fox in the snow, number ${index}`,
        mode: "simple",
      });
      expect(generation.status).toBe(201);
      created.push(generation.body.id);
    }
    const served = (path: string) =>
      new Set(proxy.requests.filter((request) => request.path === path).map((request) => request.backend));
    for (const path of ["/v1/images/search", "/v1/images/buy", "/v1/image-generations"]) {
      expect([...served(path)].sort(), path).toEqual([0, 1]);
    }

    // Each worker runs at most CONCURRENCY at once: 2 × CONCURRENCY in Processing means both hold some.
    await until(
      async () => (await query("SELECT id FROM generations WHERE status = 2")).length === 2 * CONCURRENCY,
      { what: "both workers busy" },
    );
    workers[0]?.child.kill("SIGKILL");

    const finished = new Map<string, Generation>();
    await until(
      async () => {
        for (const id of created) {
          const { body } = await send<Generation>("GET", `/v1/image-generations/${id}`);
          if (body.status >= 3) finished.set(id, body);
        }
        return finished.size === GENERATIONS;
      },
      { what: "every generation finished" },
    );
    for (const generation of finished.values()) expect(generation).toMatchObject({ status: 3, nbImages: 4 });

    // Completed once each: one print.completed event, and 4 images, one per index.
    const completions = await query<{ generation_id: string; count: string }>(
      "SELECT generation_id, count(*) FROM outbox_events WHERE type = 'print.completed' GROUP BY generation_id",
    );
    expect(completions.map((row) => [row.generation_id, Number(row.count)]).sort()).toEqual(
      created.map((id) => [id, 1]).sort(),
    );
    const images = await query<{ generation_id: string; indexes: number[] }>(
      `SELECT generation_id, array_agg(generation_index ORDER BY generation_index) AS indexes
         FROM images WHERE generation_id = ANY($1) GROUP BY generation_id`,
      [created],
    );
    expect(images.map((row) => row.indexes)).toEqual(created.map(() => [0, 1, 2, 3]));
    const stored = await s3.client().send(new ListObjectsV2Command({ Bucket: s3.bucket }));
    for (const id of created) {
      const files = stored.Contents?.filter((object) => object.Key?.startsWith(`generations/${id}/`));
      expect(files, id).toHaveLength(4);
    }

    // Every event reached the receiver (at least once), signed with the webhook's secret.
    const events = await query<{ id: string }>("SELECT id FROM outbox_events WHERE type = ANY($1)", [EVENTS]);
    expect(events.length).toBeGreaterThanOrEqual(GENERATIONS * 7);
    const delivered = () => new Set(receiver.received.map((request) => request.headers["webhook-id"]));
    // A delivery cut short by the kill is made by the other worker once its lock lapses (GENERATION_LOCK_SECONDS).
    await until(() => events.every((event) => delivered().has(event.id)), { what: "every event delivered" });
    for (const request of receiver.received) {
      expect(verifyWebhook(request.body, request.headers, subscribed.secret).type).toMatch(/^print\./);
    }
  });
});
