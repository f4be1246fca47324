import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jpegSize } from "../../../tests/support/images.js";
import { type JsonBody, readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { client, fox, storedFiles } from "./generations.support.js";

describe("image generations' credits, owners and deletions", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(
      process.env.DEBUG_GEN ? { env: { LOG_LEVEL: "debug" }, logDestination: process.stderr } : {},
    );
  });
  afterAll(() => api.close());
  const { prisma, send, create, finished, display, credit } = client(() => api);

  it("holds one generation credit and writes nothing when none is left (402)", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images_print: 1 } });
    await create(apiKey);
    const refused = await send("POST", "/v1/image-generations", apiKey, fox);
    expect(await readJson(refused)).toEqual({
      statusCode: 402,
      error: "Payment Required",
      message: ["no f_images_print credit left for a generation (0 left)"],
    });
    expect(await prisma().generation.count({ where: { accountId } })).toBe(1);
    expect(await prisma().outboxEvent.count({ where: { accountId, type: "print.created" } })).toBe(1);
  });

  it("holds exactly the credits there are when 12 creates race for 5", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images_print: 5 } });
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => send("POST", "/v1/image-generations", apiKey, fox)),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(5).fill(201), ...Array(7).fill(402)]);
    const created = await prisma().generation.findMany({ where: { accountId }, select: { id: true } });
    expect(created).toHaveLength(5);
    const debits = await prisma().creditLedgerEntry.findMany({
      where: { bucket: { accountId, type: "f_images_print" }, reason: "generation" },
    });
    expect(debits.map((entry) => entry.reference).sort()).toEqual(created.map(({ id }) => id).sort());
    expect(debits.every((entry) => entry.amount === -1)).toBe(true);
    const bucket = await prisma().creditBucket.findFirst({ where: { accountId, type: "f_images_print" } });
    expect(bucket?.balance).toBe(0);
    expect(await prisma().outboxEvent.count({ where: { accountId, type: "print.created" } })).toBe(5);
  });

  it("lets only dedicated accounts choose the process mode, fast while their quota lasts", async () => {
    const standard = await api.createAccount();
    const forbidden = await send("POST", "/v1/image-generations", standard.apiKey, {
      ...fox,
      processMode: "fast",
    });
    expect(await readJson(forbidden)).toEqual({
      statusCode: 403,
      error: "Forbidden",
      message: ["processMode is available to accounts on the dedicated plan only"],
    });
    const { apiKey } = await api.createAccount({
      plan: "dedicated",
      credits: { f_images_print: 5, f_images_print_fast: 1 },
    });
    expect((await create(apiKey)).processMode).toBe("fast");
    expect(await credit(apiKey, "f_images_print_fast")).toBe(0);
    expect((await create(apiKey)).processMode).toBe("relax");
    const spent = await send("POST", "/v1/image-generations", apiKey, { ...fox, processMode: "fast" });
    expect(await readJson(spent)).toMatchObject({
      statusCode: 402,
      message: ["the fast generation quota is spent; use processMode relax or wait for its renewal"],
    });
  });

  it("lists, filters and pages an account's generations", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images_print: 5 } });
    const first = await create(apiKey, { ...fox, name: "Alpine lake", tags: ["water"] });
    const second = await create(apiKey, { ...fox, name: "Fox at dawn", tags: ["animal"] });
    const refused = await create(apiKey, { ...fox, name: "Fox refused", prompt: "gore" });
    for (const { id } of [first, second, refused]) await finished(apiKey, id);
    const find = async (query: string) =>
      readJson(await send("GET", `/v1/image-generations?${query}`, apiKey)).then((list: JsonBody) => ({
        total: list.filteredResults,
        names: list.prints.map((print: JsonBody) => print.name),
      }));
    expect(await find("")).toEqual({ total: 3, names: ["Fox refused", "Fox at dawn", "Alpine lake"] });
    expect(await find("sort=oldest&limit=1&offset=1")).toEqual({ total: 3, names: ["Fox at dawn"] });
    expect(await find("name=fox")).toEqual({ total: 2, names: ["Fox refused", "Fox at dawn"] });
    expect(await find("tag=water")).toEqual({ total: 1, names: ["Alpine lake"] });
    expect(await find("status=4")).toEqual({ total: 1, names: ["Fox refused"] });
    const bad = await send("GET", "/v1/image-generations?status=7&limit=500", apiKey);
    expect(bad.status).toBe(400);
  });

  it("keeps each account to its own generations (404 otherwise)", async () => {
    const owner = await api.createAccount();
    const other = await api.createAccount();
    const generation = await create(owner.apiKey);
    await finished(owner.apiKey, generation.id);
    const notFound = [`no generation with id ${generation.id} in this account`];
    for (const [method, path, body] of [
      ["GET", `/v1/image-generations/${generation.id}`, undefined],
      ["PUT", `/v1/image-generations/${generation.id}`, { name: "mine" }],
      ["POST", `/v1/image-generations/retry/${generation.id}`, undefined],
    ] as const) {
      const response = await send(method, path, other.apiKey, body);
      expect(await readJson(response)).toEqual({ statusCode: 404, error: "Not Found", message: notFound });
    }
    const mine = await create(other.apiKey);
    const mixed = await send("DELETE", "/v1/image-generations", other.apiKey, {
      printIds: [mine.id, generation.id],
    });
    expect(await readJson(mixed)).toEqual({ deleted: [mine.id], notFound: [generation.id] });
    expect(await prisma().generation.count({ where: { id: generation.id } })).toBe(1);
    expect((await send("GET", "/v1/image-generations/not-an-id", owner.apiKey)).status).toBe(404);
  });

  it("deletes generations with their stored images, keeping those somebody bought", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images: 10, f_images_print: 5 } });
    const done = await finished(apiKey, (await create(apiKey)).id);
    const [bought, ...unsold] = done.images;
    await send("POST", "/v1/images/buy", apiKey, { id: bought.id });
    expect(await storedFiles(api, done.id)).toHaveLength(4);

    const deleted = await send("DELETE", "/v1/image-generations", apiKey, { printIds: [done.id] });
    expect(deleted.status).toBe(200);
    expect(await readJson(deleted)).toEqual({ deleted: [done.id], notFound: [] });
    expect((await send("GET", `/v1/image-generations/${done.id}`, apiKey)).status).toBe(404);
    for (const image of unsold) expect((await display(image.urlFull)).status).toBe(404);
    expect(await storedFiles(api, done.id)).toHaveLength(1);
    const kept = await send("POST", "/v1/images/download", apiKey, { id: bought.id });
    expect(await jpegSize(await kept.arrayBuffer())).toMatchObject({ width: 1024, height: 576 });
  });
});
