// A real S3-compatible server (s3rver) on a free local port. Plain JavaScript so that the benchmarks can use it
// too.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";

export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

/**
 * @typedef {object} LocalS3
 * @property {string} endpoint
 * @property {string} bucket
 * @property {() => S3Client} client a client for the caller's own checks (listing objects)
 * @property {() => Promise<void>} close
 */

/**
 * Starts s3rver on a free local port with one empty bucket.
 * @param {string} bucket
 * @returns {Promise<LocalS3>}
 */
export async function startS3Server(bucket) {
  const directory = await mkdtemp(join(tmpdir(), "imagehub-s3rver-"));
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = () =>
    new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
  const admin = client();
  try {
    await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    admin.destroy();
  }
  return {
    endpoint,
    bucket,
    client,
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * The settings of an imagehub process storing in `s3`'s bucket.
 * @param {LocalS3} s3
 */
export const storageOn = (s3) => ({
  STORAGE_DRIVER: "s3",
  S3_BUCKET: s3.bucket,
  S3_ENDPOINT: s3.endpoint,
  S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
  S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
});
