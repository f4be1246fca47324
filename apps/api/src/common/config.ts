import { resolve } from "node:path";
import { z } from "zod";

export const ROLES = ["api", "worker", "all"] as const;
export type Role = (typeof ROLES)[number];

const booleanFlag = z
  .enum(["true", "false", "1", "0"])
  .transform((value) => value === "true" || value === "1");

/** Every environment variable imagehub reads; `.env.example` documents each one. */
const EnvironmentSchema = z.object({
  ROLE: z.enum(ROLES).default("all"),
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_BASE_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  DATABASE_URL: z.url().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  REDIS_URL: z.url().optional(),
  REDIS_PREFIX: z.string().min(1).default("imagehub"),
  REDIS_AUTOSTART: booleanFlag.optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  DEMO_ACCOUNT: booleanFlag.optional(),
});

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

export interface AppConfig {
  role: Role;
  http: { host: string; port: number; publicBaseUrl: string; bodyLimitBytes: number };
  dataDir: string;
  /** Absent in embedded mode: a PGlite database in `dataDir` is used instead. */
  database: { url: string; poolSize: number } | { dataDir: string };
  /** `canAutostart`: start a local redis-server when nothing answers (default when REDIS_URL is not set). */
  redis: { url: string; prefix: string; canAutostart: boolean };
  logLevel: z.infer<typeof EnvironmentSchema>["LOG_LEVEL"];
  shutdownGraceMs: number;
  /** Create (on first start) and print a demo account with credits. */
  hasDemoAccount: boolean;
}

export class ConfigError extends Error {}

/** Parses the environment once; a bad variable stops start-up with a message naming it. */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const parsed = EnvironmentSchema.safeParse(pickDefined(env, Object.keys(EnvironmentSchema.shape)));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  }
  const values = parsed.data;
  const dataDir = resolve(values.DATA_DIR);
  const isEmbedded = values.DATABASE_URL === undefined;
  return {
    role: values.ROLE,
    http: {
      host: values.HOST,
      port: values.PORT,
      publicBaseUrl: (values.PUBLIC_BASE_URL ?? `http://localhost:${values.PORT}`).replace(/\/+$/, ""),
      bodyLimitBytes: values.BODY_LIMIT_BYTES,
    },
    dataDir,
    database: isEmbedded
      ? { dataDir: resolve(dataDir, "pglite") }
      : { url: values.DATABASE_URL as string, poolSize: values.DATABASE_POOL_SIZE },
    redis: {
      url: values.REDIS_URL ?? DEFAULT_REDIS_URL,
      prefix: values.REDIS_PREFIX,
      canAutostart: values.REDIS_AUTOSTART ?? !values.REDIS_URL,
    },
    logLevel: values.LOG_LEVEL,
    shutdownGraceMs: values.SHUTDOWN_GRACE_MS,
    hasDemoAccount: values.DEMO_ACCOUNT ?? isEmbedded,
  };
}

/** Empty variables count as unset, as in most shells' `VAR= command`. */
function pickDefined(env: NodeJS.ProcessEnv, names: string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
}

export const APP_CONFIG = Symbol("AppConfig");
