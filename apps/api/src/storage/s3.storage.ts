import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { OnApplicationShutdown } from "@nestjs/common";
import type { S3StorageConfig } from "../common/config.js";
import { assertValidKey, type ImageStorage } from "./image-storage.js";

/** An S3-compatible bucket: AWS S3, MinIO, and the like. */
export class S3Storage implements ImageStorage, OnApplicationShutdown {
  private readonly client: S3Client;

  constructor(private readonly config: S3StorageConfig) {
    this.client = new S3Client({
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      // Absent: AWS's own endpoint and the SDK's default credential chain.
      ...(config.endpoint && { endpoint: config.endpoint }),
      ...(config.credentials && { credentials: config.credentials }),
    });
  }

  async get(key: string): Promise<Buffer | undefined> {
    assertValidKey(key);
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: key }));
      return Buffer.from((await object.Body?.transformToByteArray()) ?? []);
    } catch (error) {
      // Some S3-compatible servers answer a bare 404 rather than NoSuchKey; a missing bucket is a
      // misconfiguration to report, not an empty storage.
      if (
        error instanceof NoSuchKey ||
        (error instanceof S3ServiceException &&
          error.$metadata.httpStatusCode === 404 &&
          error.name !== "NoSuchBucket")
      ) {
        return undefined;
      }
      throw error;
    }
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    assertValidKey(key);
    // S3 writes are atomic: a reader sees the previous object or the new one, never a part.
    await this.client.send(
      new PutObjectCommand({ Bucket: this.config.bucket, Key: key, Body: bytes, ContentType: contentType }),
    );
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    // S3 answers success for a key it does not hold.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: key }));
  }

  async presignedUrl(key: string, ttlSeconds: number, downloadName?: string): Promise<string> {
    assertValidKey(key);
    const command = new GetObjectCommand({
      Bucket: this.config.bucket,
      Key: key,
      ...(downloadName !== undefined && { ResponseContentDisposition: attachment(downloadName) }),
    });
    return await getSignedUrl(this.client, command, { expiresIn: ttlSeconds });
  }

  /** Closes the client's pooled connections once the HTTP server and the workers have stopped. */
  onApplicationShutdown(): void {
    this.client.destroy();
  }
}

/**
 * A quote or a control character would break out of the header value, so the plain filename holds a safe
 * ASCII version and any other name travels in filename* as well (RFC 6266).
 */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  if (ascii === name) return `attachment; filename="${name}"`;
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
