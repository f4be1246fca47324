import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";

const fox = { name: "Fox", prompt: "a red fox in the snow", mode: "simple" };

describe("Idempotency-Key on creating calls", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({
      env: { ROLE: "api", WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" },
    });
  });
  afterAll(() => api.close());

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

  it("applies to other creating calls: a webhook subscription is made once", async () => {
    const { apiKey, accountId } = await api.createAccount();
    const subscribe = () =>
      api.request("/v1/api-keys/webhook/subscribe", {
        apiKey,
        method: "POST",
        json: { url: "http://127.0.0.1:9/imagehub" },
        headers: { "idempotency-key": "subscribe-1" },
      });
    const first = await readJson(await subscribe());
    expect(await readJson(await subscribe())).toEqual(first);
    expect(await api.resources.database.prisma.webhook.count({ where: { accountId } })).toBe(1);
  });
});
