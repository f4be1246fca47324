import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImage, jpegSize } from "../../../tests/support/images.js";
import { readJson } from "../../../tests/support/json.js";
import { type LocalS3, startS3Server, storageOn } from "../../../tests/support/s3-server.mjs";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";

const BUCKET = "imagehub-test";

/** An API storing in a bucket of a real S3-compatible server (s3rver) on a local port, for a describe block. */
function apiOnS3(env: Record<string, string> = {}) {
  let s3: LocalS3;
  let api: TestApi;
  let apiKey: string;
  beforeAll(async () => {
    s3 = await startS3Server(BUCKET);
    api = await startTestApi({
      env: { ...storageOn(s3), ...env },
    });
    ({ apiKey } = await api.createAccount({ credits: { f_images: 5 } }));
  });
  afterAll(async () => {
    await api.close();
    await s3.close();
  });
  return { s3: () => s3, api: () => api, apiKey: () => apiKey };
}

/** The whole catalogue on S3 storage. */
describe("the catalogue on S3-compatible storage", () => {
  const { s3, api, apiKey } = apiOnS3();

  it("stores renditions in the bucket and serves them for display", async () => {
    const image = await createImage(api().resources.database.prisma);
    const preview = await api().request(`/v1/images/preview/${image.id}.jpg`);
    expect(preview.status).toBe(200);
    expect(await jpegSize(await preview.arrayBuffer())).toMatchObject({ format: "jpeg", width: 512 });
    const client = s3().client();
    const listed = await client.send(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `images/${image.id}/` }),
    );
    client.destroy();
    expect((listed.Contents ?? []).map((object) => object.Key).sort()).toEqual([
      `images/${image.id}/original.jpg`,
      `images/${image.id}/preview.jpg`,
    ]);
  });

  it("turns the signed links of a purchase into presigned URLs of the bucket", async () => {
    const image = await createImage(api().resources.database.prisma);
    const bought = await readJson(
      await api().request("/v1/images/buy", { apiKey: apiKey(), method: "POST", json: { id: image.id } }),
    );
    const link = (bought.urlUpscale as string).replace(/^https?:\/\/[^/]+/, api().baseUrl);
    const redirect = await fetch(link, { redirect: "manual" });
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get("location") as string;
    expect(location.startsWith(`${s3().endpoint}/${BUCKET}/images/${image.id}/upscale.jpg?`)).toBe(true);
    expect(location).toContain("X-Amz-Expires=3600");
    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="${image.id}-upscale.jpg"`);
    expect(await jpegSize(await file.arrayBuffer())).toEqual({ format: "jpeg", width: 1536, height: 1024 });
  });
});

describe("display answered from the bucket (S3_DISPLAY_REDIRECT_SECONDS)", () => {
  const { s3, api, apiKey } = apiOnS3({ S3_DISPLAY_REDIRECT_SECONDS: "300" });

  it("redirects to the rendition in the bucket, signed for that long, and still answers 304 to its ETag", async () => {
    const image = await createImage(api().resources.database.prisma);
    const preview = `${api().baseUrl}/v1/images/preview/${image.id}.jpg`;
    const redirect = await fetch(preview, { redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("cache-control")).toBe("public, max-age=150");
    const location = redirect.headers.get("location") as string;
    expect(location.startsWith(`${s3().endpoint}/${BUCKET}/images/${image.id}/preview.jpg?`)).toBe(true);
    expect(location).toContain("X-Amz-Expires=300");
    const file = await fetch(location);
    expect(file.headers.get("content-disposition")).toBeNull();
    expect(await jpegSize(await file.arrayBuffer())).toMatchObject({ format: "jpeg", width: 512 });
    const etag = redirect.headers.get("etag") as string;
    const again = await fetch(preview, { redirect: "manual", headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });

  it("signs the clean original for its buyer only, kept private", async () => {
    const image = await createImage(api().resources.database.prisma, { price: 1 });
    const bought = await api().request("/v1/images/buy", {
      apiKey: apiKey(),
      method: "POST",
      json: { id: image.id },
    });
    expect(bought.status).toBe(200);
    const display = (key?: string) =>
      fetch(`${api().baseUrl}/v1/images/full/${image.id}.jpg`, {
        redirect: "manual",
        headers: key ? { "api-key": key } : {},
      });
    const own = await display(apiKey());
    expect(own.headers.get("cache-control")).toBe("private, max-age=150");
    expect(own.headers.get("location")).toContain(`/images/${image.id}/original.jpg?`);
    const anyone = await display();
    expect(anyone.headers.get("cache-control")).toBe("public, max-age=150");
    expect(anyone.headers.get("location")).toContain(`/images/${image.id}/full-watermarked.jpg?`);
  });
});
