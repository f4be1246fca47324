import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { MIGRATIONS_DIR } from "@imagehub/db";
import { GenerationStatus } from "@imagehub/domain";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { IdempotencyRepository } from "../src/idempotency/idempotency.repository.js";

const fox = { name: "Fox", prompt: "a red fox in the snow", mode: "simple" };

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({
    env: { ROLE: "api", WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" },
  });
});
afterAll(() => api.close());

describe("Idempotency-Key on creating calls", () => {
  const create = (apiKey: string, key: string | undefined, body: unknown = fox) =>
    api.request("/v1/image-generations", {
      apiKey,
      method: "POST",
      json: body,
      ...(key !== undefined && { headers: { "idempotency-key": key } }),
    });
  const generationsOf = (accountId: string) =>
    api.resources.database.prisma.generation.findMany({ where: { accountId } });
  const printCredits = async (apiKey: string) =>
    (await readJson(await api.request("/v1/credit", { apiKey }))).credits.find(
      (bucket: { type: string }) => bucket.type === "f_images_print",
    ).credit;

  it("answers the same key and body with the first answer, running it once", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images_print: 5 } });
    const first = await create(apiKey, "fox-1");
    const again = await create(apiKey, "fox-1");
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(await readJson(again)).toEqual(await readJson(first));
    expect(await generationsOf(accountId)).toHaveLength(1);
    expect(await printCredits(apiKey)).toBe(4);
  });

  it("refuses the same key with another body (409), and runs nothing", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images_print: 5 } });
    expect((await create(apiKey, "fox-2")).status).toBe(201);
    const other = await create(apiKey, "fox-2", { ...fox, name: "Another fox" });
    expect(other.status).toBe(409);
    expect((await readJson(other)).message).toEqual([
      "this Idempotency-Key was used with another request (method, path or body); use a new key",
    ]);
    expect(await generationsOf(accountId)).toHaveLength(1);
  });

  it("runs one of many concurrent requests with one key; the others get its answer or 409", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images_print: 5 } });
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(apiKey, "fox-race")));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    const created = answers.filter((answer) => answer.status === 201);
    const ids = new Set(await Promise.all(created.map(async (answer) => (await readJson(answer)).id)));
    expect(ids.size).toBe(1);
    for (const refused of answers.filter((answer) => answer.status === 409)) {
      expect(refused.headers.get("retry-after")).toBe("1");
    }
    expect(await generationsOf(accountId)).toHaveLength(1);
    expect(await printCredits(apiKey)).toBe(4);
  });

  it("keeps a refusal as the answer: 402 again, even once credits came", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images_print: 0 } });
    expect((await create(apiKey, "broke")).status).toBe(402);
    await api.resources.database.prisma.$executeRaw`
      INSERT INTO credit_ledger (bucket_id, amount, reason, actor)
      SELECT id, 1, 'grant', 'test' FROM credit_buckets
      WHERE account_id = ${accountId}::uuid AND type = 'f_images_print'`;
    const again = await create(apiKey, "broke");
    expect(again.status).toBe(402);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await create(apiKey, "with-credit")).status).toBe(201);
  });

  it("scopes keys to their account", async () => {
    const first = await api.createAccount({ credits: { f_images_print: 1 } });
    const second = await api.createAccount({ credits: { f_images_print: 1 } });
    const mine = await readJson(await create(first.apiKey, "shared-key"));
    const theirs = await readJson(await create(second.apiKey, "shared-key"));
    expect(theirs.id).not.toBe(mine.id);
  });

  it("refuses a key longer than 255 characters (400)", async () => {
    const { apiKey } = await api.createAccount();
    const response = await create(apiKey, "k".repeat(256));
    expect(response.status).toBe(400);
    expect((await readJson(response)).message).toEqual(["Idempotency-Key: must be 1 to 255 characters"]);
  });

  it("applies to other creating calls: a webhook subscription is made once, its secret never replayed", async () => {
    const { apiKey, accountId } = await api.createAccount();
    const subscribe = () =>
      api.request("/v1/api-keys/webhook/subscribe", {
        apiKey,
        method: "POST",
        json: { url: "http://127.0.0.1:9/imagehub" },
        headers: { "idempotency-key": "subscribe-1" },
      });
    const { webhookId } = await readJson(await subscribe());
    const replay = await subscribe();
    expect(replay.status).toBe(409);
    expect((await readJson(replay)).message[0]).toContain(`look up webhook ${webhookId} instead`);
    expect(await api.resources.database.prisma.webhook.count({ where: { accountId } })).toBe(1);
  });
});

/**
 * The write has committed; the statement that would keep its answer under the key then fails (the database
 * went away in between, or the process died): a retry with the same key must not write again.
 */
describe("Idempotency-Key when the answer cannot be kept after the write", () => {
  afterEach(() => vi.restoreAllMocks());

  const prisma = () => api.resources.database.prisma;

  /** Sends the request twice with one key, the first time losing the answer after the write: the retry's answer. */
  async function retriedAfterLostAnswer(
    apiKey: string,
    method: string,
    path: string,
    json?: unknown,
  ): Promise<Response> {
    vi.spyOn(api.app.get(IdempotencyRepository), "record").mockRejectedValueOnce(
      new Error("Connection terminated unexpectedly"),
    );
    const send = () =>
      api.request(path, {
        apiKey,
        method,
        ...(json !== undefined && { json }),
        headers: { "idempotency-key": `${method} ${path}` },
      });
    expect((await send()).status).toBe(503);
    const retried = await send();
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    return retried;
  }

  const printCreditsLeft = async (accountId: string) =>
    (
      await prisma().creditBucket.findUniqueOrThrow({
        where: { accountId_type: { accountId, type: "f_images_print" } },
      })
    ).balance;

  async function createGeneration(apiKey: string): Promise<string> {
    return (await readJson(await api.request("/v1/image-generations", { apiKey, method: "POST", json: fox })))
      .id;
  }

  async function subscribe(apiKey: string): Promise<string> {
    const answer = await api.request("/v1/api-keys/webhook/subscribe", {
      apiKey,
      method: "POST",
      json: { url: "http://127.0.0.1:9/imagehub" },
    });
    return (await readJson(answer)).webhookId;
  }

  it("creates one generation and charges one credit", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images_print: 5 } });
    const retried = await retriedAfterLostAnswer(apiKey, "POST", "/v1/image-generations", fox);
    expect(retried.status).toBe(201);
    const generations = await prisma().generation.findMany({ where: { accountId } });
    expect(generations.map((generation) => generation.id)).toEqual([(await readJson(retried)).id]);
    expect(await printCreditsLeft(accountId)).toBe(4);
  });

  it("retries a generation once, charging one credit, under a cap on running generations", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images_print: 5 } });
    // Creates and retries under a cap write in a transaction of their own: it records the answer too.
    await prisma().account.update({
      where: { id: accountId },
      data: { limits: { "active-generations": 5 } },
    });
    const id = await createGeneration(apiKey);
    await prisma().generation.update({
      where: { id },
      data: { status: GenerationStatus.Error, creditHeld: false },
    });
    const retried = await retriedAfterLostAnswer(apiKey, "POST", `/v1/image-generations/retry/${id}`);
    expect(retried.status).toBe(200);
    expect((await prisma().generation.findUniqueOrThrow({ where: { id } })).attempt).toBe(2);
    expect(await printCreditsLeft(accountId)).toBe(3);
  });

  it("answers a deletion as it was made", async () => {
    const { apiKey } = await api.createAccount();
    const id = await createGeneration(apiKey);
    const retried = await retriedAfterLostAnswer(apiKey, "DELETE", "/v1/image-generations", {
      printIds: [id],
    });
    expect(await readJson(retried)).toEqual({ deleted: [id], notFound: [] });
  });

  it("subscribes one webhook, the retry told to look it up (its secret is not kept to answer again)", async () => {
    const { apiKey, accountId } = await api.createAccount();
    const retried = await retriedAfterLostAnswer(apiKey, "POST", "/v1/api-keys/webhook/subscribe", {
      url: "http://127.0.0.1:9/imagehub",
    });
    const webhooks = await prisma().webhook.findMany({ where: { accountId } });
    expect(webhooks).toHaveLength(1);
    expect(retried.status).toBe(409);
    const refusal = await readJson(retried);
    expect(refusal.message[0]).toContain(`look up webhook ${webhooks[0]?.id} instead`);
    expect(JSON.stringify(refusal)).not.toContain(webhooks[0]?.secret);
  });

  it("answers an unsubscription as it was made", async () => {
    const { apiKey } = await api.createAccount();
    const id = await subscribe(apiKey);
    const retried = await retriedAfterLostAnswer(apiKey, "DELETE", `/v1/api-keys/webhook/unsubscribe/${id}`);
    expect(retried.status).toBe(200);
  });

  it("sends one test event", async () => {
    const { apiKey } = await api.createAccount();
    const id = await subscribe(apiKey);
    const retried = await retriedAfterLostAnswer(apiKey, "POST", `/v1/api-keys/webhook/${id}/test`);
    const events = await prisma().outboxEvent.findMany({ where: { webhookId: id, type: "test" } });
    expect(events.map((event) => event.id)).toEqual([(await readJson(retried)).eventId]);
  });

  it("enables a webhook once", async () => {
    const { apiKey } = await api.createAccount();
    const id = await subscribe(apiKey);
    await prisma().webhook.update({
      where: { id },
      data: { disabledAt: new Date(), disabledReason: "test" },
    });
    const retried = await retriedAfterLostAnswer(apiKey, "POST", `/v1/api-keys/webhook/${id}/enable`, {});
    expect(retried.status).toBe(200);
    expect((await readJson(retried)).disabled).toBe(false);
  });
});

describe("the migration that removes secrets kept at rest", () => {
  it("turns a kept answer holding a secret into its refusal, and strips credentials from webhook URLs", async () => {
    const { apiKey, accountId } = await api.createAccount();
    const prisma = api.resources.database.prisma;
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    // As an earlier version kept them.
    const webhook = await prisma.webhook.create({
      data: { accountId, url: "https://user:hunter2@hooks.example.test/in", events: ["test"], secret },
    });
    await prisma.idempotencyKey.create({
      data: {
        accountId,
        key: "old-subscribe",
        requestHash: "h",
        statusCode: 201,
        response: { webhookId: webhook.id, secret },
      },
    });
    await prisma.idempotencyKey.create({
      data: { accountId, key: "old-test", requestHash: "h", statusCode: 201, response: { eventId: "e1" } },
    });
    const client = new pg.Client({ connectionString: api.database.url });
    await client.connect();
    try {
      await client.query(
        await readFile(join(MIGRATIONS_DIR, "20261202000000_no_secrets_at_rest", "migration.sql"), "utf8"),
      );
    } finally {
      await client.end();
    }
    const kept = await prisma.idempotencyKey.findMany({ where: { accountId }, orderBy: { key: "asc" } });
    expect(kept.map(({ key, statusCode, response }) => ({ key, statusCode, response }))).toEqual([
      {
        key: "old-subscribe",
        statusCode: 409,
        response: {
          statusCode: 409,
          error: "Conflict",
          message: [
            `the first request with this Idempotency-Key succeeded, but its answer held a secret that is shown only once and not kept: look up webhook ${webhook.id} instead (if its secret was lost, replace it)`,
          ],
        },
      },
      { key: "old-test", statusCode: 201, response: { eventId: "e1" } },
    ]);
    const listed = await readJson(await api.request("/v1/api-keys/webhooks", { apiKey }));
    expect(JSON.stringify(listed)).not.toContain("hunter2");
    expect((await prisma.webhook.findUniqueOrThrow({ where: { id: webhook.id } })).url).toBe(
      "https://hooks.example.test/in",
    );
  });
});
