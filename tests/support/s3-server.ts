import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";

export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** A client for the test's own checks (listing objects). */
  client(): S3Client;
  close(): Promise<void>;
}

/** A real S3-compatible server (s3rver) on a free local port, with one empty bucket. */
export async function startS3Server(bucket: string): Promise<LocalS3> {
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
