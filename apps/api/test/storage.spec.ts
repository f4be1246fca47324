import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImageStorage } from "../src/storage/image-storage.js";
import { LocalFileStorage } from "../src/storage/local-file.storage.js";
import { S3Storage } from "../src/storage/s3.storage.js";

/** The contract every storage keeps, run against each implementation. */
function describeStorage(
  name: string,
  open: () => Promise<{ storage: ImageStorage; close(): Promise<void> }>,
  { isOwnAtomicity }: { isOwnAtomicity: boolean },
) {
  describe(name, () => {
    let storage: ImageStorage;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ storage, close } = await open());
    });
    afterAll(() => close());

    it("returns what was put, and undefined for a key never put", async () => {
      const bytes = Buffer.from("jpeg bytes");
      await storage.put("images/a/original.jpg", bytes, "image/jpeg");
      expect((await storage.get("images/a/original.jpg"))?.equals(bytes)).toBe(true);
      expect(await storage.get("images/a/missing.jpg")).toBeUndefined();
    });

    it("overwrites", async () => {
      await storage.put("images/b/preview.jpg", Buffer.from("one"), "image/jpeg");
      await storage.put("images/b/preview.jpg", Buffer.from("two"), "image/jpeg");
      expect((await storage.get("images/b/preview.jpg"))?.toString()).toBe("two");
    });

    it.each(["", "/etc/passwd", "images/../../secret", "images\\\\x.jpg", "images/a b.jpg", "images//x.jpg"])(
      "refuses the key %j",
      async (key) => {
        await expect(storage.put(key, Buffer.from("x"), "image/jpeg")).rejects.toThrow(/invalid storage key/);
        await expect(storage.get(key)).rejects.toThrow(/invalid storage key/);
      },
    );

    // S3 makes every PUT atomic itself (s3rver, the local stand-in, does not); local files rely on our rename.
    if (!isOwnAtomicity) return;
    it("never lets a reader see part of an object while it is rewritten", async () => {
      const first = Buffer.alloc(200_000, 1);
      const second = Buffer.alloc(200_000, 2);
      const key = "images/c/upscale.jpg";
      await storage.put(key, first, "image/jpeg");
      const reads: Promise<Buffer | undefined>[] = [];
      const writes: Promise<void>[] = [];
      for (let round = 0; round < 20; round += 1) {
        writes.push(storage.put(key, round % 2 ? first : second, "image/jpeg"));
        reads.push(storage.get(key));
      }
      await Promise.all(writes);
      for (const read of await Promise.all(reads)) {
        expect(read?.equals(first) || read?.equals(second)).toBe(true);
      }
    });
  });
}

describeStorage(
  "LocalFileStorage",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "imagehub-storage-"));
    const storage = new LocalFileStorage(dir);
    return { storage, close: () => rm(dir, { recursive: true, force: true }) };
  },
  { isOwnAtomicity: true },
);

const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

async function startS3() {
  const dir = await mkdtemp(join(tmpdir(), "imagehub-s3rver-"));
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory: dir });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const admin = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials });
  await admin.send(new CreateBucketCommand({ Bucket: "contract" }));
  admin.destroy();
  const storage = new S3Storage({
    driver: "s3",
    bucket: "contract",
    region: "us-east-1",
    endpoint,
    credentials,
    forcePathStyle: true,
  });
  return {
    storage,
    async close() {
      storage.close();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

describeStorage("S3Storage (against s3rver)", startS3, { isOwnAtomicity: false });

describe("presigned URLs", () => {
  it("are fetchable for the given time, as an attachment when named", async () => {
    const { storage, close } = await startS3();
    try {
      await storage.put("images/d/uhd.jpg", Buffer.from("uhd bytes"), "image/jpeg");
      const url = (await storage.presignedUrl("images/d/uhd.jpg", 120, "d-uhd.jpg")) as string;
      expect(url).toContain("X-Amz-Expires=120");
      const response = await fetch(url);
      expect(await response.text()).toBe("uhd bytes");
      expect(response.headers.get("content-disposition")).toBe('attachment; filename="d-uhd.jpg"');
    } finally {
      await close();
    }
  });

  it("do not exist for local files: the API signs its own links", async () => {
    expect(await new LocalFileStorage(tmpdir()).presignedUrl()).toBeUndefined();
  });
});
