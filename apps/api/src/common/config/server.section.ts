import { resolve } from "node:path";
import { DEFAULT_POOL_SIZE } from "@imagehub/db";
import { z } from "zod";
import { booleanFlag, publicBaseUrlOf, SHARED_VARIABLES, section, VariableProblem } from "./variables.js";

export const ROLES = ["api", "worker", "all"] as const;
export type Role = (typeof ROLES)[number];

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

const { PORT, PUBLIC_BASE_URL, DATA_DIR, DATABASE_URL, API_PROCESSES } = SHARED_VARIABLES;

/** The process: its role, its data, PostgreSQL and Redis, shutdown, keys and jobs. */
export const ServerSection = section(
  {
    ROLE: z.enum(ROLES).default("all"),
    API_PROCESSES,
    DATA_DIR,
    DATABASE_URL,
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(DEFAULT_POOL_SIZE),
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
    REDIS_URL: z.url().optional(),
    REDIS_PREFIX: z.string().min(1).optional(),
    REDIS_AUTOSTART: booleanFlag.optional(),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
    SHUTDOWN_PRE_STOP_MS: z.coerce.number().int().min(0).max(600_000).default(0),
    JOB_ENQUEUE_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
    JOB_SCHEDULE_REFRESH_MS: z.coerce.number().int().min(50).max(3_600_000).default(60_000),
    DEMO_ACCOUNT: booleanFlag.optional(),
    API_KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(5),
    API_KEYS_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(20),
    API_KEY_FREE_FAILURES: z.coerce.number().int().min(1).max(10_000).default(20),
  },
  (values) => {
    const dataDir = resolve(values.DATA_DIR);
    const isEmbedded = values.DATABASE_URL === undefined;
    if (values.API_PROCESSES > 1 && (values.ROLE !== "api" || isEmbedded)) {
      throw new VariableProblem(
        "API_PROCESSES",
        "more than 1 needs ROLE=api and a DATABASE_URL (the embedded database and the queue workers run in one process)",
      );
    }
    return {
      role: values.ROLE,
      /**
       * HTTP processes this start runs (ROLE=api): a supervisor forks them on one port (Node's cluster
       * module hands each new connection to the next), so that the API uses every core of its host.
       */
      apiProcesses: values.API_PROCESSES,
      dataDir,
      /** Absent in embedded mode: a PGlite database in `dataDir` is used instead. */
      database:
        values.DATABASE_URL === undefined
          ? { dataDir: resolve(dataDir, "pglite") }
          : {
              url: values.DATABASE_URL,
              poolSize: values.DATABASE_POOL_SIZE,
              connectTimeoutMs: values.DATABASE_CONNECT_TIMEOUT_MS,
            },
      /**
       * `canAutostart`: start a local redis-server when nothing answers (default when REDIS_URL is not set).
       * `prefix`: REDIS_PREFIX; absent, one drawn from the database (`Resources.redisPrefix`), so that servers
       * of different databases sharing a Redis never take each other's jobs.
       */
      redis: {
        url: values.REDIS_URL ?? DEFAULT_REDIS_URL,
        prefix: values.REDIS_PREFIX,
        canAutostart: values.REDIS_AUTOSTART ?? !values.REDIS_URL,
      },
      logLevel: values.LOG_LEVEL,
      /**
       * How long a process reuses an API key's lookup (with its account) before reading it again: a key revoked
       * or a plan changed elsewhere (admin CLI, another process) takes effect within this time (0: at once).
       */
      apiKeyCacheSeconds: values.API_KEY_CACHE_SECONDS,
      shutdownGraceMs: values.SHUTDOWN_GRACE_MS,
      /**
       * On SIGTERM, how long an API process keeps accepting connections (answering each with `Connection:
       * close`, /health with 503) before it stops listening: behind a load balancer, which stops sending
       * meanwhile, no connection the kernel has already accepted is then reset. 0 (no load balancer): clients
       * that keep connecting are refused at once rather than reset when the socket closes under them.
       */
      shutdownPreStopMs: values.SHUTDOWN_PRE_STOP_MS,
      /** API keys an account may have that are not revoked. */
      apiKeysPerAccount: values.API_KEYS_PER_ACCOUNT,
      /** Failed key checks (unknown or revoked keys) one client address makes before it must wait, longer each time. */
      apiKeyFreeFailures: values.API_KEY_FREE_FAILURES,
      /** How often a worker registers the schedules of periodic jobs again (Redis may have lost them). */
      jobScheduleRefreshMs: values.JOB_SCHEDULE_REFRESH_MS,
      /**
       * How long a request waits to queue a job once its change is committed; past it (Redis away) the request
       * answers anyway and the job is queued later by a sweep, from what PostgreSQL holds.
       */
      jobEnqueueTimeoutMs: values.JOB_ENQUEUE_TIMEOUT_MS,
      /** Create (on first start) and print a demo account with credits. */
      hasDemoAccount: values.DEMO_ACCOUNT ?? isEmbedded,
    };
  },
);

export const HttpSection = section(
  {
    HOST: z.string().min(1).default("127.0.0.1"),
    PORT,
    PUBLIC_BASE_URL,
    BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024),
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
    TRUST_PROXY: z
      .string()
      .regex(/^(true|false|[\w.:/-]+(\s*,\s*[\w.:/-]+)*)$/, "must be true, false or the proxies' addresses")
      .default("false"),
  },
  (values) => ({
    host: values.HOST,
    port: values.PORT,
    publicBaseUrl: publicBaseUrlOf(values),
    bodyLimitBytes: values.BODY_LIMIT_BYTES,
    /** A request whose headers and body have not all arrived by then is answered 408 and its connection closed. */
    requestTimeoutMs: values.HTTP_REQUEST_TIMEOUT_MS,
    /** The same for the headers alone. */
    headersTimeoutMs: values.HTTP_HEADERS_TIMEOUT_MS,
    /** An idle keep-alive connection is closed after this long. */
    keepAliveTimeoutMs: values.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    /** Fastify's trustProxy: whose X-Forwarded-For gives the client address (per-address rate limits). */
    trustProxy: parseTrustProxy(values.TRUST_PROXY),
  }),
);

/** `true`, `false`, or the proxies' addresses (comma-separated, CIDR allowed). */
function parseTrustProxy(text: string): boolean | string[] {
  if (text === "true" || text === "false") return text === "true";
  return text.split(",").map((address) => address.trim());
}

/**
 * Prometheus metrics of this process, each process its own. `port`: served on a port of their own (API
 * and worker processes alike), for scrapers on a private network. `token`: API processes also serve them
 * at /metrics for `Authorization: Bearer <token>`. Neither set: not served.
 */
export const MetricsSection = section(
  {
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    METRICS_HOST: z.string().min(1).default("127.0.0.1"),
    METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
    API_PROCESSES,
  },
  (values) => {
    if (values.API_PROCESSES > 1 && values.METRICS_TOKEN !== undefined) {
      // Each scrape would reach whichever process took its connection.
      throw new VariableProblem(
        "METRICS_TOKEN",
        "with API_PROCESSES above 1, /metrics on the API's port would answer for one process at a time: use METRICS_PORT (process i serves METRICS_PORT + i)",
      );
    }
    return { port: values.METRICS_PORT, host: values.METRICS_HOST, token: values.METRICS_TOKEN };
  },
);

/** The queue dashboard under /admin/queues: absent unless QUEUE_DASHBOARD=true, which needs ADMIN_TOKEN. */
export const QueueDashboardSection = section(
  {
    QUEUE_DASHBOARD: booleanFlag.default(false),
    ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  },
  (values): { adminToken: string } | undefined => {
    if (!values.QUEUE_DASHBOARD) return undefined;
    if (!values.ADMIN_TOKEN) throw new VariableProblem("ADMIN_TOKEN", "required when QUEUE_DASHBOARD=true");
    return { adminToken: values.ADMIN_TOKEN };
  },
);
