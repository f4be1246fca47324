import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  CREDIT_BUCKET_TYPES,
  type CreditBucketType,
  IMAGE_ENGINE_NAMES,
  type ImageEngineName,
} from "@imagehub/domain";
import { z } from "zod";
import type { RateLimitBudget } from "./rate-limits.js";

export const ROLES = ["api", "worker", "all"] as const;
export type Role = (typeof ROLES)[number];
export type { ImageEngineName } from "@imagehub/domain";
export const OPENAI_IMAGE_QUALITIES = ["low", "medium", "high", "auto"] as const;

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
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  REDIS_URL: z.url().optional(),
  REDIS_PREFIX: z.string().min(1).optional(),
  REDIS_AUTOSTART: booleanFlag.optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  SHUTDOWN_PRE_STOP_MS: z.coerce.number().int().min(0).max(600_000).default(0),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
  JOB_ENQUEUE_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  JOB_SCHEDULE_REFRESH_MS: z.coerce.number().int().min(50).max(3_600_000).default(60_000),
  DEMO_ACCOUNT: booleanFlag.optional(),
  STORAGE_DRIVER: z.enum(["local", "s3"]).default("local"),
  STORAGE_DIR: z.string().min(1).optional(),
  S3_BUCKET: z.string().min(3).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ENDPOINT: z.url().optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: booleanFlag.optional(),
  LINK_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  LINK_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .default(3600),
  CATALOGUE_SEED_COUNT: z.coerce.number().int().min(0).optional(),
  IMAGE_ENGINE: z.enum(IMAGE_ENGINE_NAMES).default("procedural"),
  IMAGE_ENGINES: z
    .string()
    .regex(
      new RegExp(`^(${IMAGE_ENGINE_NAMES.join("|")})(\\s*,\\s*(${IMAGE_ENGINE_NAMES.join("|")}))*$`),
      `must be a comma-separated list of ${IMAGE_ENGINE_NAMES.join(", ")}`,
    )
    .optional(),
  IMAGE_ENGINE_CONCURRENCY: z
    .string()
    .regex(
      new RegExp(
        `^(${IMAGE_ENGINE_NAMES.join("|")})=[1-9]\\d*(\\s*,\\s*(${IMAGE_ENGINE_NAMES.join("|")})=[1-9]\\d*)*$`,
      ),
      "must be a comma-separated list of engine=count, e.g. comfyui=1,openai=8",
    )
    .optional(),
  IMAGE_PROMPT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  IMAGE_PROMPT_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(300).default(20),
  IMAGE_PROMPT_ALLOW_PRIVATE: booleanFlag.default(false),
  PROCEDURAL_IMAGE_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  ENGINE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
  ENGINE_REQUEST_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(3600).default(120),
  ENGINE_RETRIES: z.coerce.number().int().min(0).max(10).default(3),
  ENGINE_RETRY_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  ENGINE_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  OPENAI_BASE_URL: z.url().default("https://api.openai.com/v1"),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_IMAGE_MODEL: z.string().min(1).default("gpt-image-1"),
  OPENAI_IMAGE_QUALITY: z.enum(OPENAI_IMAGE_QUALITIES).optional(),
  SDWEBUI_BASE_URL: z.url().default("http://127.0.0.1:7860"),
  SDWEBUI_API_AUTH: z
    .string()
    .regex(/^[^:]+:.+$/, "must be user:password, as given to --api-auth")
    .optional(),
  SDWEBUI_MODEL: z.string().min(1).optional(),
  SDWEBUI_SAMPLER: z.string().min(1).optional(),
  SDWEBUI_STEPS: z.coerce.number().int().min(1).max(150).default(30),
  SDWEBUI_LONG_EDGE: z.coerce.number().int().min(256).max(4096).multipleOf(64).default(1024),
  SDWEBUI_DENOISE: z.coerce.number().min(0.05).max(1).default(0.6),
  MIDJOURNEY_BASE_URL: z.url().optional(),
  COMFYUI_BASE_URL: z.url().default("http://127.0.0.1:8188"),
  COMFYUI_CHECKPOINT: z.string().min(1).default("sd_xl_base_1.0.safetensors"),
  COMFYUI_SAMPLER: z.string().min(1).default("euler"),
  COMFYUI_SCHEDULER: z.string().min(1).default("normal"),
  COMFYUI_STEPS: z.coerce.number().int().min(1).max(150).default(25),
  COMFYUI_LONG_EDGE: z.coerce.number().int().min(256).max(4096).multipleOf(64).default(1024),
  COMFYUI_DENOISE: z.coerce.number().min(0.05).max(1).default(0.6),
  COMFYUI_WORKFLOW: z.string().min(1).optional(),
  COMFYUI_IMAGE_WORKFLOW: z.string().min(1).optional(),
  COMFYUI_QUEUE_START_SECONDS: z.coerce.number().min(0.1).max(3600).default(120),
  MIDJOURNEY_API_SECRET: z.string().min(1).optional(),
  PROMPT_OPTIMIZER: z.enum(["builtin", "llm"]).default("builtin"),
  PROMPT_OPTIMIZER_BASE_URL: z.url().default("https://api.openai.com/v1"),
  PROMPT_OPTIMIZER_API_KEY: z.string().min(1).optional(),
  PROMPT_OPTIMIZER_MODEL: z.string().min(1).default("gpt-4o-mini"),
  PROMPT_OPTIMIZER_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(300).default(20),
  GENERATION_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  GENERATION_LOCK_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  GENERATION_SWEEP_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  GENERATION_MAX_LIFETIME_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(7 * 24 * 3600)
    .default(3600),
  MODERATION_REFUSED_TERMS: z.string().optional(),
  SEARCH_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(10),
  SEARCH_POSTINGS_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(256),
  API_KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(5),
  API_KEYS_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(20),
  API_KEY_FREE_FAILURES: z.coerce.number().int().min(1).max(10_000).default(20),
  WEBHOOK_ALLOW_HTTP: booleanFlag.default(false),
  WEBHOOK_ALLOW_PRIVATE: booleanFlag.default(false),
  WEBHOOK_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).max(1000).default(10),
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(60).default(15),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/, "must be a comma-separated list of seconds")
    .default("5,300,1800,7200,18000,36000,36000"),
  WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce
    .number()
    .min(1)
    .max(365 * 24 * 3600)
    .default(5 * 24 * 3600),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(100),
  WEBHOOK_RELAY_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(100),
  WEBHOOK_SWEEP_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  TRUST_PROXY: z
    .string()
    .regex(/^(true|false|[\w.:/-]+(\s*,\s*[\w.:/-]+)*)$/, "must be true, false or the proxies' addresses")
    .default("false"),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  RATE_LIMIT_GENERAL: requestsPerWindow(600),
  RATE_LIMIT_SEARCH: requestsPerWindow(120),
  RATE_LIMIT_GENERATION_CREATE: requestsPerWindow(30),
  RATE_LIMIT_WEBHOOK_TEST: requestsPerWindow(10),
  RATE_LIMIT_DISPLAY: requestsPerWindow(1200),
  RATE_LIMIT_API_KEY_CREATE: requestsPerWindow(10),
  MAX_ACTIVE_GENERATIONS: z.coerce.number().int().min(0).max(1_000_000).default(100),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  QUEUE_DASHBOARD: booleanFlag.default(false),
  WEB_DIR: z.string().min(1).optional(),
  SIGN_UP_OPEN: booleanFlag.default(false),
  SIGN_UP_CREDITS: z
    .string()
    .regex(
      new RegExp(`^((${CREDIT_BUCKET_TYPES.join("|")})=\\d+)?(,(${CREDIT_BUCKET_TYPES.join("|")})=\\d+)*$`),
      "must be a comma-separated list of bucket=amount, e.g. f_images=10,f_images_print=3",
    )
    .default("f_images=10,f_images_print=3"),
  SESSION_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 365)
    .default(24 * 14),
  SIGN_IN_FREE_FAILURES: z.coerce.number().int().min(1).max(100).default(5),
  SIGN_IN_MAX_DELAY_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 3600)
    .default(300),
  SIGN_IN_ATTEMPTS_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(20),
  SMTP_URL: z
    .url()
    .regex(/^smtps?:\/\//, "must start with smtp:// or smtps://")
    .optional(),
  SMTP_FROM: z.string().min(3).max(320).optional(),
  SMTP_TIMEOUT_SECONDS: z.coerce.number().min(1).max(300).default(20),
});

function requestsPerWindow(fallback: number) {
  return z.coerce.number().int().min(0).max(1_000_000).default(fallback);
}

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

export interface AppConfig {
  role: Role;
  http: {
    host: string;
    port: number;
    publicBaseUrl: string;
    bodyLimitBytes: number;
    /** A request whose headers and body have not all arrived by then is answered 408 and its connection closed. */
    requestTimeoutMs: number;
    /** The same for the headers alone. */
    headersTimeoutMs: number;
    /** An idle keep-alive connection is closed after this long. */
    keepAliveTimeoutMs: number;
    /** Fastify's trustProxy: whose X-Forwarded-For gives the client address (per-address rate limits). */
    trustProxy: boolean | string[];
  };
  dataDir: string;
  /** Absent in embedded mode: a PGlite database in `dataDir` is used instead. */
  database: { url: string; poolSize: number; connectTimeoutMs: number } | { dataDir: string };
  /**
   * `canAutostart`: start a local redis-server when nothing answers (default when REDIS_URL is not set).
   * `prefix`: REDIS_PREFIX; absent, one drawn from the database (`Resources.redisPrefix`), so that servers
   * of different databases sharing a Redis never take each other's jobs.
   */
  redis: { url: string; prefix: string | undefined; canAutostart: boolean };
  logLevel: z.infer<typeof EnvironmentSchema>["LOG_LEVEL"];
  /**
   * How long a process reuses an API key's lookup (with its account) before reading it again: a key revoked
   * or a plan changed elsewhere (admin CLI, another process) takes effect within this time (0: at once).
   */
  apiKeyCacheSeconds: number;
  shutdownGraceMs: number;
  /**
   * On SIGTERM, how long an API process keeps accepting connections (answering each with `Connection:
   * close`, /health with 503) before it stops listening: behind a load balancer, which stops sending
   * meanwhile, no connection the kernel has already accepted is then reset. 0 (no load balancer): clients
   * that keep connecting are refused at once rather than reset when the socket closes under them.
   */
  shutdownPreStopMs: number;
  /** API keys an account may have that are not revoked. */
  apiKeysPerAccount: number;
  /** Failed key checks (unknown or revoked keys) one client address makes before it must wait, longer each time. */
  apiKeyFreeFailures: number;
  /** How often a worker registers the schedules of periodic jobs again (Redis may have lost them). */
  jobScheduleRefreshMs: number;
  /**
   * How long a request waits to queue a job once its change is committed; past it (Redis away) the request
   * answers anyway and the job is queued later by a sweep, from what PostgreSQL holds.
   */
  jobEnqueueTimeoutMs: number;
  /** Create (on first start) and print a demo account with credits. */
  hasDemoAccount: boolean;
  /** Where image files live: a folder (default, under DATA_DIR) or an S3-compatible bucket. */
  storage: LocalStorageConfig | S3StorageConfig;
  /**
   * Signed download links of bought images. Without LINK_SECRET, a secret is generated once and kept in
   * DATA_DIR (enough for one host; set LINK_SECRET when API processes run on several hosts).
   */
  links: { secret: string | undefined; ttlSeconds: number };
  /**
   * `seedCount`: catalogue images seeded on first start of an empty database (a few hundred when embedded).
   * `searchCacheSeconds`: how long a search answer is reused for the same search unchecked (0: never); past
   * it, it is checked in the background (kept while nothing that could change it has changed, up to a
   * minute, else renewed), and one unchecked for twice as long is not used.
   * `postingsCacheMegabytes`: how much of the search terms' postings an API process keeps between searches
   * (checked against each term's version at every search; 0: read every search's postings).
   */
  catalogue: {
    seedCount: number;
    searchCacheSeconds: number;
    postingsCacheMegabytes: number;
  };
  generations: GenerationsConfig;
  webhooks: WebhooksConfig;
  rateLimits: RateLimitsConfig;
  metrics: MetricsConfig;
  /** The queue dashboard under /admin/queues: absent unless QUEUE_DASHBOARD=true, which needs ADMIN_TOKEN. */
  queueDashboard: { adminToken: string } | undefined;
  webArea: WebAreaConfig;
  /** Invitations are mailed through this SMTP server; absent unless SMTP_URL is set. */
  mail: MailConfig | undefined;
}

export interface MailConfig {
  /** smtp://user:password@host:587 (STARTTLS when the server offers it) or smtps://…:465 (TLS from the start). */
  smtpUrl: string;
  /** The From header: SMTP_FROM, else imagehub at the public address's host. */
  from: string;
  /** Connecting, the greeting and each command must each answer within this time. */
  timeoutMs: number;
}

/**
 * Prometheus metrics of this process, each process its own. `port`: served on a port of their own (API
 * and worker processes alike), for scrapers on a private network. `token`: API processes also serve them
 * at /metrics for `Authorization: Bearer <token>`. Neither set: not served.
 */
export interface MetricsConfig {
  port: number | undefined;
  host: string;
  token: string | undefined;
}

/**
 * Requests per window of each budget, counted per account (all its keys and sessions together; per client
 * address without a key) in Redis, so that every API process shares them; 0 turns a budget off. Accounts
 * may have their own (admin CLI).
 */
export interface RateLimitsConfig {
  windowSeconds: number;
  perWindow: Record<RateLimitBudget, number>;
}

/** The account web area (apps/web) and its sign-in. */
export interface WebAreaConfig {
  /** The built single-page app, served under `/`. */
  webDir: string;
  /** Cookies get `Secure` when the public address is https. */
  hasSecureCookies: boolean;
  /** Anyone may create an account from the sign-in page, starting with `signUpCredits`. */
  isSignUpOpen: boolean;
  signUpCredits: Partial<Record<CreditBucketType, number>>;
  sessionTtlHours: number;
  /**
   * Failed sign-ins to one email from one address before each next attempt waits, 1 s then twice as long
   * each time up to `maxDelaySeconds` (ten times as many from every address together, up to a minute):
   * slow for a guesser, never a lock that someone else's failures could put on an account.
   */
  freeFailures: number;
  maxDelaySeconds: number;
  /** Sign-in attempts one address may make per minute, whatever the account. */
  signInAttemptsPerMinute: number;
}

export interface WebhooksConfig {
  /** `http://` URLs accepted (development); otherwise `https://` only. */
  allowHttp: boolean;
  /** Loopback, private, link-local and metadata addresses accepted (a bot on the same network). */
  allowPrivate: boolean;
  maxPerAccount: number;
  /** A 2xx must arrive within this time. */
  timeoutSeconds: number;
  /** Seconds to wait before each retry; one attempt plus one per entry in all. */
  retrySeconds: number[];
  /**
   * A webhook whose deliveries have failed for this long with no success in between is disabled until it
   * is re-enabled; one success ends the run. Svix and Stripe count in days, not attempts: a short outage
   * during a burst of events must not disable it.
   */
  disableAfterSeconds: number;
  /** Deliveries one worker process makes at once. */
  concurrency: number;
  /** How often the relay looks for new events when it found none. */
  relayIntervalMs: number;
  /** How often deliveries overdue by this long (their job lost with Redis' data) are queued again. */
  sweepSeconds: number;
}

export interface GenerationsConfig {
  /** The engine of a generation that names none (IMAGE_ENGINE); one of `engines`. */
  engine: ImageEngineName;
  /** The engines this deployment draws with (IMAGE_ENGINES), the default among them. */
  engines: ImageEngineName[];
  /** Generations of an engine one worker process draws at once, for the engines that have a limit of their own. */
  engineConcurrency: Partial<Record<ImageEngineName, number>>;
  /** The procedural engine waits this long before each image, to go at a real engine's pace in demos. */
  proceduralImageDelayMs: number;
  /** Set for the engines among `engines`; the other engines' settings are absent. */
  openai: OpenAiEngineConfig | undefined;
  sdwebui: SdWebUiEngineConfig | undefined;
  midjourney: MidjourneyEngineConfig | undefined;
  comfyui: ComfyUiEngineConfig | undefined;
  /** How an image prompt (`fromImageUrl`) is fetched for the engines that draw from one. */
  imagePrompts: ImagePromptConfig;
  /** How the engines that call a service (all but procedural) make their calls. */
  engineCalls: EngineCallPolicy;
  /** How optimizePrompt rewrites descriptions. */
  promptOptimizer: PromptOptimizerConfig;
  /** A generation whose engine has not delivered all 4 images by then ends in Error. */
  engineTimeoutSeconds: number;
  /** Generations one worker process runs at once. */
  concurrency: number;
  /**
   * A worker holds each running generation's lock for this long and renews it; a worker that dies loses it
   * and another takes the generation over about this long later (BullMQ's stalled-job recovery).
   */
  lockSeconds: number;
  /** Lower-case terms that make a description refused ("description not accepted"). */
  refusedTerms: string[];
  /** How often a worker looks for generations whose job is lost or spent, and for those past their lifetime. */
  sweepSeconds: number;
  /**
   * A generation not Done or in Error this long after its attempt was queued ends in Error, its credit
   * returned: the bound on how long a credit is held, whatever happens to workers, Redis or the database.
   */
  maxLifetimeSeconds: number;
  /** Generations one account may have Pending or Processing at once (0: no cap); accounts may have their own. */
  maxActivePerAccount: number;
}

export interface EngineCallPolicy {
  /** One HTTP request without its answer by then is a transient failure. */
  requestTimeoutMs: number;
  /** Transient failures (network, time-outs, 429, 5xx) are tried again this many times. */
  retries: number;
  /** The wait before the first retry, doubled for each next one; a Retry-After replaces it. */
  retryDelayMs: number;
  /** How often a running job's progress is asked for (sdwebui, midjourney). */
  pollIntervalMs: number;
}

/** The OpenAI Images API, or a gateway that speaks it. */
export interface OpenAiEngineConfig {
  /** With the version, as the OpenAI SDKs take it: https://api.openai.com/v1. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Absent: the model's default. */
  quality: (typeof OPENAI_IMAGE_QUALITIES)[number] | undefined;
}

/** AUTOMATIC1111 / Forge, started with --api. */
export interface SdWebUiEngineConfig {
  baseUrl: string;
  /** "user:password", as given to its --api-auth. */
  apiAuth: string | undefined;
  /** The checkpoint to draw with; absent: the one the server has loaded. */
  model: string | undefined;
  /** Absent: the server's default sampler. */
  sampler: string | undefined;
  steps: number;
  /** Pixels on the long edge; the short one follows the aspect ratio. */
  longEdge: number;
  /** How much of an image prompt img2img redraws, 0–1 (its denoising_strength). */
  denoise: number;
}

/** A ComfyUI server (its /prompt, /ws, /history, /view and /upload/image API). */
export interface ComfyUiEngineConfig {
  baseUrl: string;
  /** The checkpoint the default workflows load, by its file name. */
  checkpoint: string;
  sampler: string;
  scheduler: string;
  steps: number;
  /** Pixels on the long edge; the short one follows the aspect ratio. */
  longEdge: number;
  /** How much of an image prompt the image-to-image workflow redraws, 0–1. */
  denoise: number;
  /** A user's exported workflow (API format) with placeholders, instead of the default text-to-image one. */
  workflowPath: string | undefined;
  /** The same, instead of the default image-to-image one. */
  imageWorkflowPath: string | undefined;
  /** A workflow ComfyUI has not started by then is taken off its queue and the generation fails. */
  queueStartMs: number;
}

export interface ImagePromptConfig {
  /** Larger images are refused. */
  maxBytes: number;
  /** The whole download, connecting included. */
  timeoutMs: number;
  /** Loopback and private addresses accepted (an image server on the same network). */
  allowPrivate: boolean;
}

/** A midjourney-proxy server (its /mj API). */
export interface MidjourneyEngineConfig {
  baseUrl: string;
  /** Sent as mj-api-secret when the proxy asks for one. */
  apiSecret: string | undefined;
}

export type PromptOptimizerConfig =
  | { kind: "builtin" }
  | {
      /** An OpenAI-compatible chat-completions API, falling back to the built-in rewriter. */
      kind: "llm";
      /** With the version, as the OpenAI SDKs take it: https://api.openai.com/v1. */
      baseUrl: string;
      /** Absent for local servers that ask for none. */
      apiKey: string | undefined;
      model: string;
      timeoutMs: number;
    };

/** Refused when MODERATION_REFUSED_TERMS is not set; setting it (even empty) replaces the list. */
const DEFAULT_REFUSED_TERMS = ["nude", "naked", "nsfw", "porn", "gore", "beheading", "child abuse"];

export interface LocalStorageConfig {
  driver: "local";
  dir: string;
}

export interface S3StorageConfig {
  driver: "s3";
  bucket: string;
  region: string;
  /** For MinIO and other S3-compatible servers; AWS when absent. */
  endpoint: string | undefined;
  /** Both absent: the AWS SDK's default credential chain (environment, profile, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
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
  const storage = storageConfig(values, dataDir);
  const engines = configuredEngines(values);
  const publicBaseUrl = (values.PUBLIC_BASE_URL ?? `http://localhost:${values.PORT}`).replace(/\/+$/, "");
  return {
    role: values.ROLE,
    http: {
      host: values.HOST,
      port: values.PORT,
      publicBaseUrl,
      bodyLimitBytes: values.BODY_LIMIT_BYTES,
      requestTimeoutMs: values.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: values.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: values.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      trustProxy: parseTrustProxy(values.TRUST_PROXY),
    },
    dataDir,
    database: isEmbedded
      ? { dataDir: resolve(dataDir, "pglite") }
      : {
          url: values.DATABASE_URL as string,
          poolSize: values.DATABASE_POOL_SIZE,
          connectTimeoutMs: values.DATABASE_CONNECT_TIMEOUT_MS,
        },
    redis: {
      url: values.REDIS_URL ?? DEFAULT_REDIS_URL,
      prefix: values.REDIS_PREFIX,
      canAutostart: values.REDIS_AUTOSTART ?? !values.REDIS_URL,
    },
    logLevel: values.LOG_LEVEL,
    apiKeyCacheSeconds: values.API_KEY_CACHE_SECONDS,
    shutdownGraceMs: values.SHUTDOWN_GRACE_MS,
    shutdownPreStopMs: values.SHUTDOWN_PRE_STOP_MS,
    apiKeysPerAccount: values.API_KEYS_PER_ACCOUNT,
    apiKeyFreeFailures: values.API_KEY_FREE_FAILURES,
    jobScheduleRefreshMs: values.JOB_SCHEDULE_REFRESH_MS,
    jobEnqueueTimeoutMs: values.JOB_ENQUEUE_TIMEOUT_MS,
    hasDemoAccount: values.DEMO_ACCOUNT ?? isEmbedded,
    storage,
    links: { secret: values.LINK_SECRET, ttlSeconds: values.LINK_TTL_SECONDS },
    catalogue: {
      seedCount: values.CATALOGUE_SEED_COUNT ?? (isEmbedded ? 300 : 0),
      searchCacheSeconds: values.SEARCH_CACHE_SECONDS,
      postingsCacheMegabytes: values.SEARCH_POSTINGS_CACHE_MB,
    },
    generations: {
      engine: values.IMAGE_ENGINE,
      engines,
      engineConcurrency: engineConcurrency(values, engines),
      proceduralImageDelayMs: values.PROCEDURAL_IMAGE_DELAY_MS,
      ...engineServiceConfigs(values, engines),
      imagePrompts: {
        maxBytes: values.IMAGE_PROMPT_MAX_BYTES,
        timeoutMs: values.IMAGE_PROMPT_TIMEOUT_SECONDS * 1000,
        allowPrivate: values.IMAGE_PROMPT_ALLOW_PRIVATE,
      },
      engineCalls: {
        requestTimeoutMs: values.ENGINE_REQUEST_TIMEOUT_SECONDS * 1000,
        retries: values.ENGINE_RETRIES,
        retryDelayMs: values.ENGINE_RETRY_DELAY_MS,
        pollIntervalMs: values.ENGINE_POLL_INTERVAL_MS,
      },
      promptOptimizer:
        values.PROMPT_OPTIMIZER === "llm"
          ? {
              kind: "llm",
              baseUrl: withoutTrailingSlash(values.PROMPT_OPTIMIZER_BASE_URL),
              apiKey: values.PROMPT_OPTIMIZER_API_KEY,
              model: values.PROMPT_OPTIMIZER_MODEL,
              timeoutMs: values.PROMPT_OPTIMIZER_TIMEOUT_SECONDS * 1000,
            }
          : { kind: "builtin" },
      engineTimeoutSeconds: values.ENGINE_TIMEOUT_SECONDS,
      concurrency: values.GENERATION_CONCURRENCY,
      lockSeconds: values.GENERATION_LOCK_SECONDS,
      sweepSeconds: values.GENERATION_SWEEP_SECONDS,
      maxLifetimeSeconds: values.GENERATION_MAX_LIFETIME_SECONDS,
      refusedTerms:
        env.MODERATION_REFUSED_TERMS === undefined
          ? DEFAULT_REFUSED_TERMS
          : env.MODERATION_REFUSED_TERMS.split(",")
              .map((term) => term.trim().toLowerCase())
              .filter(Boolean),
      maxActivePerAccount: values.MAX_ACTIVE_GENERATIONS,
    },
    webhooks: {
      allowHttp: values.WEBHOOK_ALLOW_HTTP,
      allowPrivate: values.WEBHOOK_ALLOW_PRIVATE,
      maxPerAccount: values.WEBHOOK_MAX_PER_ACCOUNT,
      timeoutSeconds: values.WEBHOOK_TIMEOUT_SECONDS,
      retrySeconds: values.WEBHOOK_RETRY_SCHEDULE.split(",").map(Number),
      disableAfterSeconds: values.WEBHOOK_DISABLE_AFTER_SECONDS,
      concurrency: values.WEBHOOK_CONCURRENCY,
      relayIntervalMs: values.WEBHOOK_RELAY_INTERVAL_MS,
      sweepSeconds: values.WEBHOOK_SWEEP_SECONDS,
    },
    metrics: { port: values.METRICS_PORT, host: values.METRICS_HOST, token: values.METRICS_TOKEN },
    queueDashboard: queueDashboardConfig(values),
    rateLimits: {
      windowSeconds: values.RATE_LIMIT_WINDOW_SECONDS,
      perWindow: {
        general: values.RATE_LIMIT_GENERAL,
        search: values.RATE_LIMIT_SEARCH,
        "generation-create": values.RATE_LIMIT_GENERATION_CREATE,
        "webhook-test": values.RATE_LIMIT_WEBHOOK_TEST,
        display: values.RATE_LIMIT_DISPLAY,
        "api-key-create": values.RATE_LIMIT_API_KEY_CREATE,
      },
    },
    webArea: {
      webDir: resolve(values.WEB_DIR ?? fileURLToPath(new URL("../../../web/dist", import.meta.url))),
      hasSecureCookies: publicBaseUrl.startsWith("https:"),
      isSignUpOpen: values.SIGN_UP_OPEN,
      signUpCredits: Object.fromEntries(
        values.SIGN_UP_CREDITS.split(",")
          .filter(Boolean)
          .map((pair) => pair.split("="))
          .map(([type, amount]) => [type, Number(amount)]),
      ),
      sessionTtlHours: values.SESSION_TTL_HOURS,
      freeFailures: values.SIGN_IN_FREE_FAILURES,
      maxDelaySeconds: values.SIGN_IN_MAX_DELAY_SECONDS,
      signInAttemptsPerMinute: values.SIGN_IN_ATTEMPTS_PER_MINUTE,
    },
    mail: values.SMTP_URL
      ? {
          smtpUrl: values.SMTP_URL,
          from: values.SMTP_FROM ?? `imagehub <no-reply@${new URL(publicBaseUrl).hostname}>`,
          timeoutMs: values.SMTP_TIMEOUT_SECONDS * 1000,
        }
      : undefined,
  };
}

function queueDashboardConfig(values: z.infer<typeof EnvironmentSchema>): AppConfig["queueDashboard"] {
  if (!values.QUEUE_DASHBOARD) return undefined;
  if (!values.ADMIN_TOKEN)
    throw new ConfigError("Invalid configuration: ADMIN_TOKEN: required when QUEUE_DASHBOARD=true");
  return { adminToken: values.ADMIN_TOKEN };
}

/** `true`, `false`, or the proxies' addresses (comma-separated, CIDR allowed). */
function parseTrustProxy(text: string): boolean | string[] {
  if (text === "true" || text === "false") return text === "true";
  return text.split(",").map((address) => address.trim());
}

function storageConfig(values: z.infer<typeof EnvironmentSchema>, dataDir: string): AppConfig["storage"] {
  if (values.STORAGE_DRIVER === "local") {
    return { driver: "local", dir: resolve(values.STORAGE_DIR ?? resolve(dataDir, "storage")) };
  }
  if (!values.S3_BUCKET)
    throw new ConfigError("Invalid configuration: S3_BUCKET: required when STORAGE_DRIVER=s3");
  if (Boolean(values.S3_ACCESS_KEY_ID) !== Boolean(values.S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError("Invalid configuration: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together");
  }
  return {
    driver: "s3",
    bucket: values.S3_BUCKET,
    region: values.S3_REGION,
    endpoint: values.S3_ENDPOINT,
    credentials:
      values.S3_ACCESS_KEY_ID && values.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: values.S3_ACCESS_KEY_ID, secretAccessKey: values.S3_SECRET_ACCESS_KEY }
        : undefined,
    forcePathStyle: values.S3_FORCE_PATH_STYLE ?? values.S3_ENDPOINT !== undefined,
  };
}

/** IMAGE_ENGINES, or IMAGE_ENGINE alone; the default must be among them. */
function configuredEngines(values: z.infer<typeof EnvironmentSchema>): ImageEngineName[] {
  if (values.IMAGE_ENGINES === undefined) return [values.IMAGE_ENGINE];
  const engines = [...new Set(values.IMAGE_ENGINES.split(",").map((name) => name.trim() as ImageEngineName))];
  if (!engines.includes(values.IMAGE_ENGINE)) {
    throw new ConfigError(
      `Invalid configuration: IMAGE_ENGINE: ${values.IMAGE_ENGINE} is not among IMAGE_ENGINES (${engines.join(", ")})`,
    );
  }
  return engines;
}

/** IMAGE_ENGINE_CONCURRENCY, each engine named among IMAGE_ENGINES. */
function engineConcurrency(
  values: z.infer<typeof EnvironmentSchema>,
  engines: ImageEngineName[],
): Partial<Record<ImageEngineName, number>> {
  const pairs = (values.IMAGE_ENGINE_CONCURRENCY?.split(",") ?? []).map((pair) => {
    const [name = "", count] = pair.split("=").map((part) => part.trim());
    if (!engines.includes(name as ImageEngineName)) {
      throw new ConfigError(
        `Invalid configuration: IMAGE_ENGINE_CONCURRENCY: ${name} is not among IMAGE_ENGINES`,
      );
    }
    return [name, Number(count)] as const;
  });
  return Object.fromEntries(pairs);
}

/** The settings of the engines configured, with the variables each cannot do without. */
function engineServiceConfigs(
  values: z.infer<typeof EnvironmentSchema>,
  engines: ImageEngineName[],
): Pick<GenerationsConfig, "openai" | "sdwebui" | "midjourney" | "comfyui"> {
  const has = (engine: ImageEngineName) => engines.includes(engine);
  return {
    openai: has("openai")
      ? {
          baseUrl: withoutTrailingSlash(values.OPENAI_BASE_URL),
          apiKey: required(values.OPENAI_API_KEY, "OPENAI_API_KEY", "openai"),
          model: values.OPENAI_IMAGE_MODEL,
          quality: values.OPENAI_IMAGE_QUALITY,
        }
      : undefined,
    sdwebui: has("sdwebui")
      ? {
          baseUrl: withoutTrailingSlash(values.SDWEBUI_BASE_URL),
          apiAuth: values.SDWEBUI_API_AUTH,
          model: values.SDWEBUI_MODEL,
          sampler: values.SDWEBUI_SAMPLER,
          steps: values.SDWEBUI_STEPS,
          longEdge: values.SDWEBUI_LONG_EDGE,
          denoise: values.SDWEBUI_DENOISE,
        }
      : undefined,
    midjourney: has("midjourney")
      ? {
          baseUrl: withoutTrailingSlash(
            required(values.MIDJOURNEY_BASE_URL, "MIDJOURNEY_BASE_URL", "midjourney"),
          ),
          apiSecret: values.MIDJOURNEY_API_SECRET,
        }
      : undefined,
    comfyui: has("comfyui")
      ? {
          baseUrl: withoutTrailingSlash(values.COMFYUI_BASE_URL),
          checkpoint: values.COMFYUI_CHECKPOINT,
          sampler: values.COMFYUI_SAMPLER,
          scheduler: values.COMFYUI_SCHEDULER,
          steps: values.COMFYUI_STEPS,
          longEdge: values.COMFYUI_LONG_EDGE,
          denoise: values.COMFYUI_DENOISE,
          workflowPath: values.COMFYUI_WORKFLOW && resolve(values.COMFYUI_WORKFLOW),
          imageWorkflowPath: values.COMFYUI_IMAGE_WORKFLOW && resolve(values.COMFYUI_IMAGE_WORKFLOW),
          queueStartMs: values.COMFYUI_QUEUE_START_SECONDS * 1000,
        }
      : undefined,
  };
}

function required<T>(value: T | undefined, name: string, engine: ImageEngineName): T {
  if (value === undefined) {
    throw new ConfigError(
      `Invalid configuration: ${name}: required when ${engine} is among the image engines`,
    );
  }
  return value;
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/** Empty variables count as unset, as in most shells' `VAR= command`. */
function pickDefined(env: NodeJS.ProcessEnv, names: string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
}

export const APP_CONFIG = Symbol("AppConfig");
