import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImage, jpegSize } from "../../../tests/support/images.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";

const BUCKET = "imagehub-test";

/** The whole catalogue on S3 storage: a real S3-compatible server (s3rver) on a local port. */
describe("the catalogue on S3-compatible storage", () => {
  let server: S3rver;
  let directory: string;
  let endpoint: string;
  let api: TestApi;
  let apiKey: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "imagehub-s3-"));
    server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
    const s3 = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    s3.destroy();
    api = await startTestApi({
      env: {
        STORAGE_DRIVER: "s3",
        S3_BUCKET: BUCKET,
        S3_ENDPOINT: endpoint,
        S3_ACCESS_KEY_ID: credentials.accessKeyId,
        S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      },
    });
    ({ apiKey } = await api.createAccount({ credits: { f_images: 5 } }));
  });
  afterAll(async () => {
    await api.close();
    await server.close();
    await rm(directory, { recursive: true, force: true });
  });

  it("stores renditions in the bucket and serves them for display", async () => {
    const image = await createImage(api.resources.database.prisma);
    const preview = await api.request(`/v1/images/preview/${image.id}.jpg`);
    expect(preview.status).toBe(200);
    expect(await jpegSize(await preview.arrayBuffer())).toMatchObject({ format: "jpeg", width: 512 });
    const s3 = new S3Client({
      endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `images/${image.id}/` }));
    s3.destroy();
    expect((listed.Contents ?? []).map((object) => object.Key).sort()).toEqual([
      `images/${image.id}/original.jpg`,
      `images/${image.id}/preview.jpg`,
    ]);
  });

  it("turns the signed links of a purchase into presigned URLs of the bucket", async () => {
    const image = await createImage(api.resources.database.prisma);
    const bought = await readJson(
      await api.request("/v1/images/buy", { apiKey, method: "POST", json: { id: image.id } }),
    );
    const link = (bought.urlUpscale as string).replace(/^https?:\/\/[^/]+/, api.baseUrl);
    const redirect = await fetch(link, { redirect: "manual" });
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get("location") as string;
    expect(location.startsWith(`${endpoint}/${BUCKET}/images/${image.id}/upscale.jpg?`)).toBe(true);
    expect(location).toContain("X-Amz-Expires=3600");
    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="${image.id}-upscale.jpg"`);
    expect(await jpegSize(await file.arrayBuffer())).toEqual({ format: "jpeg", width: 1536, height: 1024 });
  });
});
