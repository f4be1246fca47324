import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalS3, S3RVER_CREDENTIALS, startS3Server } from "../../../tests/support/s3-server.mjs";
import type { S3StorageConfig } from "../src/common/config.js";
import { type ImageStorage, InvalidStorageKeyError } from "../src/storage/image-storage.js";
import { LocalFileStorage } from "../src/storage/local-file.storage.js";
import { S3Storage } from "../src/storage/s3.storage.js";

const BUCKET = "imagehub-storage-test";

const INVALID_KEYS = [
  "",
  "/images/1/preview.jpg",
  "../images/1/preview.jpg",
  "images/../../escaped.jpg",
  "images/1/..",
  "images/./1/preview.jpg",
  "images\\1\\preview.jpg",
  "images//1/preview.jpg",
  "images/1/",
  "images/1/preview image.jpg",
  "images/1/preview.jpg?version=2",
  "images/1/forêt.jpg",
  "C:/images/1/preview.jpg",
  `images/${"a".repeat(1024)}.jpg`,
];

function newKey(rendition = "preview"): string {
  return `images/${randomUUID()}/${rendition}.jpg`;
}

interface ContractOptions {
  /** Why overwrites cannot be shown atomic against this server, when they cannot. */
  serverTearsObjects?: string;
}

/** What every ImageStorage promises, whatever holds the bytes. */
function itKeepsTheStorageContract(storage: () => ImageStorage, options: ContractOptions = {}): void {
  it("returns the bytes it stored", async () => {
    const key = newKey();
    const bytes = randomBytes(4096);
    await storage().put(key, bytes, "image/jpeg");
    expect((await storage().get(key))?.equals(bytes)).toBe(true);
  });

  it("returns undefined for a key where nothing is stored", async () => {
    expect(await storage().get(newKey())).toBeUndefined();
    // A prefix of stored keys (a folder, for files) is not an object either.
    const key = newKey();
    await storage().put(key, randomBytes(16), "image/jpeg");
    expect(await storage().get(key.slice(0, key.lastIndexOf("/")))).toBeUndefined();
  });

  it("overwrites what a key held", async () => {
    const key = newKey();
    const second = randomBytes(1000);
    await storage().put(key, randomBytes(3000), "image/jpeg");
    await storage().put(key, second, "image/jpeg");
    expect((await storage().get(key))?.equals(second)).toBe(true);
  });

  it("deletes what a key held, and deleting nothing is no error", async () => {
    const key = newKey();
    await storage().put(key, randomBytes(100), "image/jpeg");
    await storage().delete(key);
    expect(await storage().get(key)).toBeUndefined();
    await expect(storage().delete(key)).resolves.toBeUndefined();
  });

  it.each(INVALID_KEYS.map((key) => [describeKey(key), key]))("refuses the key %s", async (_, key) => {
    await expect(storage().get(key)).rejects.toThrow(InvalidStorageKeyError);
    await expect(storage().put(key, randomBytes(16), "image/jpeg")).rejects.toThrow(InvalidStorageKeyError);
    await expect(storage().presignedUrl(key, 60)).rejects.toThrow(InvalidStorageKeyError);
    await expect(storage().delete(key)).rejects.toThrow(InvalidStorageKeyError);
  });

  it.skipIf(options.serverTearsObjects !== undefined)(
    "never lets a reader see a partly written object under concurrent writes",
    async () => {
      const key = newKey("full");
      const versions = [randomBytes(200 * 1024), randomBytes(200 * 1024)] as const;
      await storage().put(key, versions[0], "image/jpeg");
      const read = async (): Promise<string> => {
        const bytes = await storage().get(key);
        const version = versions.findIndex((candidate) => bytes?.equals(candidate));
        return version === -1 ? `partial (${bytes?.length ?? "no"} bytes)` : `version ${version}`;
      };
      const operations = Array.from({ length: 20 }, (_, index) => [
        storage().put(key, versions[index % 2] as Buffer, "image/jpeg"),
        read(),
      ]).flat();
      const reads = (await Promise.all(operations)).filter((result) => result !== undefined);
      expect(reads).toHaveLength(20);
      for (const result of [...reads, await read()]) expect(result).toMatch(/^version [01]$/);
    },
  );
}

function describeKey(key: string): string {
  return key.length > 60
    ? `${JSON.stringify(key.slice(0, 30))}… (${key.length} characters)`
    : JSON.stringify(key);
}

describe("local file storage", () => {
  let root: string;
  let directory: string;
  let storage: LocalFileStorage;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "imagehub-storage-"));
    // Not created beforehand: the storage makes its folder.
    directory = join(root, "storage");
    storage = new LocalFileStorage({ driver: "local", dir: directory });
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  itKeepsTheStorageContract(() => storage);

  it("keeps each object in a file under its key, and no temporary file once writes are done", async () => {
    const key = newKey();
    await Promise.all(Array.from({ length: 10 }, () => storage.put(key, randomBytes(10_000), "image/jpeg")));
    const folder = key.slice(0, key.lastIndexOf("/"));
    expect(await readdir(join(directory, folder))).toEqual(["preview.jpg"]);
  });

  it("makes a key's folder again when it was removed after a write", async () => {
    const key = newKey();
    await storage.put(key, randomBytes(16), "image/jpeg");
    await rm(join(directory, key.slice(0, key.lastIndexOf("/"))), { recursive: true });
    const bytes = randomBytes(1_000);
    await storage.put(key, bytes, "image/jpeg");
    expect((await storage.get(key))?.equals(bytes)).toBe(true);
  });

  it("has no presigned URLs (the API signs its own links)", async () => {
    const key = newKey();
    await storage.put(key, randomBytes(16), "image/jpeg");
    expect(await storage.presignedUrl(key, 600, "photo.jpg")).toBeUndefined();
  });
});

describe("S3 storage (s3rver)", () => {
  let s3: LocalS3;
  let config: S3StorageConfig;
  let storage: S3Storage;

  beforeAll(async () => {
    s3 = await startS3Server(BUCKET);
    config = {
      driver: "s3",
      bucket: BUCKET,
      region: "us-east-1",
      endpoint: s3.endpoint,
      credentials: S3RVER_CREDENTIALS,
      forcePathStyle: true,
      displayRedirectSeconds: 0,
    };
    storage = new S3Storage(config);
  });
  afterAll(async () => {
    storage?.onApplicationShutdown();
    await s3?.close();
  });

  itKeepsTheStorageContract(() => storage, {
    // s3rver rewrites an object's file and metadata in place (putObject in its lib/stores/filesystem.js):
    // its own readers get torn, empty or aborted bodies. S3 and MinIO replace an object atomically.
    serverTearsObjects: "s3rver writes objects in place",
  });

  it("reports a missing bucket instead of answering that nothing is stored", async () => {
    const elsewhere = new S3Storage({ ...config, bucket: "no-such-bucket" });
    try {
      await expect(elsewhere.get(newKey())).rejects.toMatchObject({ name: "NoSuchBucket" });
    } finally {
      elsewhere.onApplicationShutdown();
    }
  });

  it("presigns URLs that a client fetches directly, for the given time", async () => {
    const key = newKey();
    const bytes = randomBytes(50_000);
    await storage.put(key, bytes, "image/jpeg");
    const url = await storage.presignedUrl(key, 600);
    expect(url.startsWith(`${config.endpoint}/${BUCKET}/${key}?`)).toBe(true);
    expect(new URL(url).searchParams.get("X-Amz-Expires")).toBe("600");
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/jpeg");
    expect(response.headers.get("content-disposition")).toBeNull();
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("makes the presigned object an attachment named downloadName", async () => {
    const key = newKey("upscale");
    const bytes = randomBytes(20_000);
    await storage.put(key, bytes, "image/jpeg");
    const url = await storage.presignedUrl(key, 3600, "sunset-upscale.jpg");
    expect(new URL(url).searchParams.get("X-Amz-Expires")).toBe("3600");
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="sunset-upscale.jpg"');
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("keeps a downloadName with quotes or accents inside the Content-Disposition value", async () => {
    const key = newKey();
    await storage.put(key, randomBytes(16), "image/jpeg");
    const response = await fetch(await storage.presignedUrl(key, 60, 'forêt "1".jpg'));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="for_t _1_.jpg"; filename*=UTF-8''for%C3%AAt%20%221%22.jpg`,
    );
    await response.arrayBuffer();
  });
});
