import { resolve } from "node:path";
import { z } from "zod";
import { booleanFlag, SHARED_VARIABLES, section, VariableProblem } from "./variables.js";

/** Where image files live: a folder (default, under DATA_DIR) or an S3-compatible bucket. */
export const StorageSection = section(
  {
    DATA_DIR: SHARED_VARIABLES.DATA_DIR,
    STORAGE_DRIVER: z.enum(["local", "s3"]).default("local"),
    STORAGE_DIR: z.string().min(1).optional(),
    S3_BUCKET: z.string().min(3).optional(),
    S3_REGION: z.string().min(1).default("us-east-1"),
    S3_ENDPOINT: z.url().optional(),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    S3_FORCE_PATH_STYLE: booleanFlag.optional(),
    S3_DISPLAY_REDIRECT_SECONDS: z.coerce.number().int().min(0).max(604_800).default(0),
  },
  (values) => {
    if (values.STORAGE_DRIVER === "local") {
      if (values.S3_DISPLAY_REDIRECT_SECONDS > 0) {
        throw new VariableProblem("S3_DISPLAY_REDIRECT_SECONDS", "needs STORAGE_DRIVER=s3");
      }
      const dir = resolve(values.STORAGE_DIR ?? resolve(resolve(values.DATA_DIR), "storage"));
      return { driver: "local" as const, dir };
    }
    if (!values.S3_BUCKET) throw new VariableProblem("S3_BUCKET", "required when STORAGE_DRIVER=s3");
    if (Boolean(values.S3_ACCESS_KEY_ID) !== Boolean(values.S3_SECRET_ACCESS_KEY)) {
      throw new VariableProblem(undefined, "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together");
    }
    return {
      driver: "s3" as const,
      bucket: values.S3_BUCKET,
      region: values.S3_REGION,
      /** For MinIO and other S3-compatible servers; AWS when absent. */
      endpoint: values.S3_ENDPOINT,
      /** Both absent: the AWS SDK's default credential chain (environment, profile, instance role). */
      credentials:
        values.S3_ACCESS_KEY_ID && values.S3_SECRET_ACCESS_KEY
          ? { accessKeyId: values.S3_ACCESS_KEY_ID, secretAccessKey: values.S3_SECRET_ACCESS_KEY }
          : undefined,
      forcePathStyle: values.S3_FORCE_PATH_STYLE ?? values.S3_ENDPOINT !== undefined,
      /** Above 0: display answers with a redirect to the bucket signed for this long, not with the bytes. */
      displayRedirectSeconds: values.S3_DISPLAY_REDIRECT_SECONDS,
    };
  },
);
