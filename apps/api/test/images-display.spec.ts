import { readdir } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImage, jpegSize, meanDifference } from "../../../tests/support/images.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";

describe("GET /v1/images/{format}/{imageId}.jpg", () => {
  let api: TestApi;
  let buyer: string;
  let stranger: string;
  let paid: { id: string };
  let free: { id: string };
  let clean: ArrayBuffer;

  beforeAll(async () => {
    api = await startTestApi();
    ({ apiKey: buyer } = await api.createAccount({ credits: { f_images: 5 } }));
    ({ apiKey: stranger } = await api.createAccount({ credits: { f_images: 5 } }));
    paid = await createImage(api.resources.database.prisma, { en: "A lighthouse at night" });
    free = await createImage(api.resources.database.prisma, { en: "A sunny beach", free: true });
    clean = await (
      await api.request("/v1/images/download", { apiKey: buyer, method: "POST", json: { id: paid.id } })
    ).arrayBuffer();
  });
  afterAll(() => api.close());

  const display = (path: string, headers: Record<string, string> = {}) => api.request(path, { headers });

  it("serves a watermarked preview of at most 512 px without a key", async () => {
    const response = await display(`/v1/images/preview/${paid.id}.jpg`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/jpeg");
    const preview = await response.arrayBuffer();
    expect(await jpegSize(preview)).toEqual({ format: "jpeg", width: 512, height: 341 });
    expect(await meanDifference(preview, clean)).toBeGreaterThan(6);
  });

  it("watermarks the full image for anyone who has not bought it", async () => {
    for (const headers of [{}, { "api-key": stranger }] as Record<string, string>[]) {
      const full = await (await display(`/v1/images/full/${paid.id}.jpg`, headers)).arrayBuffer();
      expect(await jpegSize(full)).toEqual({ format: "jpeg", width: 768, height: 512 });
      expect(await meanDifference(full, clean)).toBeGreaterThan(6);
    }
  });

  it("serves the clean full image to its buyer, and free images to everyone", async () => {
    const response = await display(`/v1/images/full/${paid.id}.jpg`, { "api-key": buyer });
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(clean))).toBe(true);
    expect(response.headers.get("cache-control")).toMatch(/^private/);
    expect(response.headers.get("vary")).toBe("api-key");
    const freeClean = await (
      await api.request("/v1/images/download", { apiKey: stranger, method: "POST", json: { id: free.id } })
    ).arrayBuffer();
    const freeFull = await (await display(`/v1/images/full/${free.id}.jpg`)).arrayBuffer();
    expect(Buffer.from(freeFull).equals(Buffer.from(freeClean))).toBe(true);
  });

  it("caches with a strong ETag and answers 304 to If-None-Match", async () => {
    const first = await display(`/v1/images/preview/${paid.id}.jpg`);
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const again = await display(`/v1/images/preview/${paid.id}.jpg`, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    expect((await display(`/v1/images/preview/${paid.id}.jpg`, { "if-none-match": '"other"' })).status).toBe(
      200,
    );
  });

  it("answers HEAD with the headers and no body", async () => {
    const response = await api.request(`/v1/images/preview/${paid.id}.jpg`, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers.get("etag")).toMatch(/^"/);
    expect(Number(response.headers.get("content-length"))).toBeGreaterThan(0);
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  it("produces each rendition once and keeps it in storage", async () => {
    const image = await createImage(api.resources.database.prisma);
    const [a, b] = await Promise.all([
      display(`/v1/images/preview/${image.id}.jpg`),
      display(`/v1/images/preview/${image.id}.jpg`),
    ]);
    expect(a.headers.get("etag")).toBe(b.headers.get("etag"));
    const stored = await api.resources.database.prisma.image.findUniqueOrThrow({ where: { id: image.id } });
    expect(Object.keys(stored.renditions as object).sort()).toEqual(["original", "preview"]);
    const files = await readdir(
      `${api.resources.config.storage.driver === "local" ? api.resources.config.storage.dir : ""}/images/${image.id}`,
    );
    expect(files.sort()).toEqual(["original.jpg", "preview.jpg"]);
  });

  it("answers 404 for an unknown image and 400 for an unknown format, in the error body", async () => {
    const missing = await display("/v1/images/preview/00000000-0000-4000-8000-000000000000.jpg");
    expect(missing.status).toBe(404);
    expect(await readJson(missing)).toMatchObject({ statusCode: 404, error: "Not Found" });
    const badFormat = await display(`/v1/images/huge/${paid.id}.jpg`);
    expect(badFormat.status).toBe(400);
    expect((await readJson(badFormat)).message[0]).toMatch(/^format: /);
  });
});
