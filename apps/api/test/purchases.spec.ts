import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImage, jpegSize, meanDifference } from "../../../tests/support/images.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { LinkSigner } from "../src/purchases/link-signer.js";

describe("buying and downloading", () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  const prisma = () => api.resources.database.prisma;
  const post = (path: string, apiKey: string, json: unknown) =>
    api.request(path, { apiKey, method: "POST", json });
  const balance = async (apiKey: string) =>
    (await readJson(await api.request("/v1/credit", { apiKey }))).credits.find(
      (bucket: { type: string }) => bucket.type === "f_images",
    )?.credit;

  it("debits the price once, in the ledger, and answers links", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images: 10 } });
    const image = await createImage(prisma(), { price: 3 });
    const first = await post("/v1/images/buy", apiKey, { id: image.id });
    expect(first.status).toBe(200);
    const bought = await readJson(first);
    expect(bought).toEqual({
      id: image.id,
      url: expect.stringMatching(new RegExp(`/v1/images/preview/${image.id}\\.jpg$`)),
      urlFull: expect.stringContaining(`/v1/images/files/${image.id}/full.jpg?expires=`),
      urlUpscale: expect.stringContaining(`/v1/images/files/${image.id}/upscale.jpg?expires=`),
      urlUpscaleUHD: expect.stringContaining(`/v1/images/files/${image.id}/uhd.jpg?expires=`),
      downloadedAt: expect.any(String),
    });
    expect(await balance(apiKey)).toBe(7);

    const again = await readJson(await post("/v1/images/buy", apiKey, { id: image.id }));
    expect(again.downloadedAt).toBe(bought.downloadedAt);
    const download = await post("/v1/images/download", apiKey, { id: image.id });
    expect(download.status).toBe(200);
    expect(await balance(apiKey)).toBe(7);
    const debits = await prisma().creditLedgerEntry.findMany({
      where: { bucket: { accountId }, reason: "purchase" },
    });
    expect(debits.map(({ amount, reference }) => ({ amount, reference }))).toEqual([
      { amount: -3, reference: image.id },
    ]);
    expect((await prisma().image.findUniqueOrThrow({ where: { id: image.id } })).popularity).toBe(1);
  });

  it("downloads the clean full JPEG as an attachment", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images: 5 } });
    const image = await createImage(prisma());
    const response = await post("/v1/images/download", apiKey, { id: image.id });
    expect(response.headers.get("content-type")).toBe("image/jpeg");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${image.id}.jpg"`);
    expect(await jpegSize(await response.arrayBuffer())).toEqual({ format: "jpeg", width: 768, height: 512 });
    expect(await balance(apiKey)).toBe(4);
  });

  it("gives free images for nothing", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images: 1 } });
    const image = await createImage(prisma(), { free: true, price: 2 });
    expect((await post("/v1/images/buy", apiKey, { id: image.id })).status).toBe(200);
    expect(await balance(apiKey)).toBe(1);
  });

  it("answers 402 when credits are short, and writes nothing", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images: 1 } });
    const image = await createImage(prisma(), { price: 2 });
    const response = await post("/v1/images/buy", apiKey, { id: image.id });
    expect(response.status).toBe(402);
    expect(await readJson(response)).toEqual({
      statusCode: 402,
      error: "Payment Required",
      message: ["not enough credits: this image costs 2 f_images credits and 1 are left"],
    });
    expect(await prisma().purchase.count({ where: { accountId } })).toBe(0);
    expect(await balance(apiKey)).toBe(1);
    expect((await prisma().image.findUniqueOrThrow({ where: { id: image.id } })).popularity).toBe(0);
  });

  it("answers 402 for an account without an f_images bucket", async () => {
    const { apiKey } = await api.createAccount({ credits: {} });
    const image = await createImage(prisma());
    expect((await post("/v1/images/download", apiKey, { id: image.id })).status).toBe(402);
  });

  it("answers 404 for an unknown image and 400 without an id", async () => {
    const { apiKey } = await api.createAccount();
    expect(
      (await post("/v1/images/buy", apiKey, { id: "00000000-0000-4000-8000-000000000000" })).status,
    ).toBe(404);
    expect((await post("/v1/images/buy", apiKey, { id: "not-an-id" })).status).toBe(404);
    const missing = await post("/v1/images/buy", apiKey, {});
    expect(missing.status).toBe(400);
    expect((await readJson(missing)).message[0]).toMatch(/^id: /);
  });

  it("debits once when the same image is bought 20 times at once", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images: 10 } });
    const image = await createImage(prisma(), { price: 2 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => post("/v1/images/buy", apiKey, { id: image.id })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    const dates = new Set(
      await Promise.all(responses.map(async (response) => (await readJson(response)).downloadedAt)),
    );
    expect(dates.size).toBe(1);
    expect(await balance(apiKey)).toBe(8);
    expect(
      await prisma().creditLedgerEntry.count({ where: { bucket: { accountId }, reason: "purchase" } }),
    ).toBe(1);
  });

  it("never takes the balance below zero when different images are bought at once", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images: 5 } });
    const images = await Promise.all(Array.from({ length: 12 }, () => createImage(prisma())));
    const responses = await Promise.all(
      images.map((image) => post("/v1/images/buy", apiKey, { id: image.id })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(5).fill(200), ...Array(7).fill(402)]);
    expect(await balance(apiKey)).toBe(0);
    expect(await prisma().purchase.count({ where: { accountId } })).toBe(5);
    const bucket = await prisma().creditBucket.findFirstOrThrow({ where: { accountId, type: "f_images" } });
    const sum = await prisma().creditLedgerEntry.aggregate({
      where: { bucketId: bucket.id },
      _sum: { amount: true },
    });
    expect(sum._sum.amount).toBe(bucket.balance);
  });

  it("refuses, in the database itself, a debit that would overdraw", async () => {
    const { accountId } = await api.createAccount({ credits: { f_images: 1 } });
    const bucket = await prisma().creditBucket.findFirstOrThrow({ where: { accountId, type: "f_images" } });
    await expect(
      prisma().creditLedgerEntry.create({
        data: { bucketId: bucket.id, amount: -2, reason: "purchase", actor: "test" },
      }),
    ).rejects.toThrow(/credit_buckets_balance_check/);
  });
});

describe("signed links of bought images", () => {
  let api: TestApi;
  let apiKey: string;
  let imageId: string;
  let bought: { urlFull: string; urlUpscale: string; urlUpscaleUHD: string };

  beforeAll(async () => {
    api = await startTestApi();
    ({ apiKey } = await api.createAccount({ credits: { f_images: 5 } }));
    imageId = (await createImage(api.resources.database.prisma)).id;
    bought = await readJson(
      await api.request("/v1/images/buy", { apiKey, method: "POST", json: { id: imageId } }),
    );
  });
  afterAll(() => api.close());

  const fetchLink = (url: string) => fetch(url.replace(new URL(url).origin, api.baseUrl));

  it("serve the clean full image without a key, the same bytes Download answers", async () => {
    const linked = Buffer.from(await (await fetchLink(bought.urlFull)).arrayBuffer());
    const downloaded = Buffer.from(
      await (
        await api.request("/v1/images/download", { apiKey, method: "POST", json: { id: imageId } })
      ).arrayBuffer(),
    );
    expect(linked.equals(downloaded)).toBe(true);
  });

  it("serve a 2× upscale and a 3840 px UHD upscale", async () => {
    expect(await jpegSize(await (await fetchLink(bought.urlUpscale)).arrayBuffer())).toEqual({
      format: "jpeg",
      width: 1536,
      height: 1024,
    });
    const uhd = await (await fetchLink(bought.urlUpscaleUHD)).arrayBuffer();
    expect(await jpegSize(uhd)).toEqual({ format: "jpeg", width: 3840, height: 2560 });
    const full = await (await fetchLink(bought.urlFull)).arrayBuffer();
    expect(await meanDifference(full, uhd)).toBeLessThan(4);
  });

  it("refuse a forged or expired link with 403", async () => {
    const forged = bought.urlFull.replace(/signature=[^&]+/, "signature=AAAA");
    expect((await fetchLink(forged)).status).toBe(403);
    const otherImage = bought.urlFull.replace(imageId, "00000000-0000-4000-8000-000000000000");
    expect((await fetchLink(otherImage)).status).toBe(403);
    const signer = api.app.get(LinkSigner);
    const expired = signer.url(imageId, "full", Date.now() - 2 * 24 * 3600_000);
    const response = await fetchLink(expired);
    expect(response.status).toBe(403);
    expect((await readJson(response)).message[0]).toMatch(/expired/);
  });
});

describe("GET/POST /v1/images/downladed", () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it("lists what the account obtained, newest first, filtered by date", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images: 10 } });
    const images = [];
    for (let index = 0; index < 3; index += 1) {
      const image = await createImage(api.resources.database.prisma);
      await api.request("/v1/images/buy", { apiKey, method: "POST", json: { id: image.id } });
      images.push(image.id);
    }
    const list = async (json: unknown) =>
      api.request("/v1/images/downladed", { apiKey, method: "POST", json }).then(readJson);
    const all = await list({});
    expect(all.filteredResults).toBe(3);
    expect(all.images.map((image: { id: string }) => image.id)).toEqual([...images].reverse());
    const middle = all.images[1].downloadedAt;
    expect((await list({ beforeCreatedAt: middle })).images.map((image: { id: string }) => image.id)).toEqual(
      [images[0]],
    );
    expect((await list({ afterCreatedAt: middle })).images.map((image: { id: string }) => image.id)).toEqual([
      images[2],
    ]);
    expect((await list({ limit: 1, offset: 1 })).images.map((image: { id: string }) => image.id)).toEqual([
      images[1],
    ]);
    const { apiKey: otherKey } = await api.createAccount();
    expect(
      await api
        .request("/v1/images/downladed", { apiKey: otherKey, method: "POST", json: {} })
        .then(readJson),
    ).toEqual({
      filteredResults: 0,
      images: [],
    });
  });

  it.each([
    [{ afterCreatedAt: "yesterday" }, /^afterCreatedAt: /],
    [
      { afterCreatedAt: "2026-02-01T00:00:00Z", beforeCreatedAt: "2026-01-01T00:00:00Z" },
      /^afterCreatedAt: must be earlier/,
    ],
  ])("refuses %j with 400", async (json, message) => {
    const { apiKey } = await api.createAccount();
    const response = await api.request("/v1/images/downladed", { apiKey, method: "POST", json });
    expect(response.status).toBe(400);
    expect((await readJson(response)).message[0]).toMatch(message);
  });

  it("is not served at the correctly spelled path, as on the live service", async () => {
    const { apiKey } = await api.createAccount();
    expect((await api.request("/v1/images/downloaded", { apiKey, method: "POST", json: {} })).status).toBe(
      404,
    );
  });
});
