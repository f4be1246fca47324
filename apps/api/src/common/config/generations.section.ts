import { resolve } from "node:path";
import { IMAGE_ENGINE_NAMES, type ImageEngineName } from "@imagehub/domain";
import { z } from "zod";
import { booleanFlag, section, VariableProblem, withoutTrailingSlash } from "./variables.js";

export const OPENAI_IMAGE_QUALITIES = ["low", "medium", "high", "auto"] as const;

/** Refused when MODERATION_REFUSED_TERMS is not set; setting it (even empty) replaces the list. */
const DEFAULT_REFUSED_TERMS = ["nude", "naked", "nsfw", "porn", "gore", "beheading", "child abuse"];

const ENGINE_LIST = IMAGE_ENGINE_NAMES.join("|");

/** The services behind the image engines and the prompt optimizer, and how they are called. */
const ENGINE_VARIABLES = {
  IMAGE_ENGINE: z.enum(IMAGE_ENGINE_NAMES).default("procedural"),
  IMAGE_ENGINES: z
    .string()
    .regex(
      new RegExp(`^(${ENGINE_LIST})(\\s*,\\s*(${ENGINE_LIST}))*$`),
      `must be a comma-separated list of ${IMAGE_ENGINE_NAMES.join(", ")}`,
    )
    .optional(),
  IMAGE_ENGINE_CONCURRENCY: z
    .string()
    .regex(
      new RegExp(`^(${ENGINE_LIST})=[1-9]\\d*(\\s*,\\s*(${ENGINE_LIST})=[1-9]\\d*)*$`),
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
};

type EngineValues = z.output<z.ZodObject<typeof ENGINE_VARIABLES>>;

export const GenerationsSection = section(
  {
    ...ENGINE_VARIABLES,
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
    MAX_ACTIVE_GENERATIONS: z.coerce.number().int().min(0).max(1_000_000).default(100),
  },
  (values) => {
    const engines = configuredEngines(values);
    return {
      /** The engine of a generation that names none (IMAGE_ENGINE); one of `engines`. */
      engine: values.IMAGE_ENGINE,
      /** The engines this deployment draws with (IMAGE_ENGINES), the default among them. */
      engines,
      /** Generations of an engine one worker process draws at once, for the engines that have a limit of their own. */
      engineConcurrency: engineConcurrency(values, engines),
      /** The procedural engine waits this long before each image, to go at a real engine's pace in demos. */
      proceduralImageDelayMs: values.PROCEDURAL_IMAGE_DELAY_MS,
      ...engineServiceConfigs(values, engines),
      /** How an image prompt (`fromImageUrl`) is fetched for the engines that draw from one. */
      imagePrompts: {
        /** Larger images are refused. */
        maxBytes: values.IMAGE_PROMPT_MAX_BYTES,
        /** The whole download, connecting included. */
        timeoutMs: values.IMAGE_PROMPT_TIMEOUT_SECONDS * 1000,
        /** Loopback and private addresses accepted (an image server on the same network). */
        allowPrivate: values.IMAGE_PROMPT_ALLOW_PRIVATE,
      },
      /** How the engines that call a service (all but procedural) make their calls. */
      engineCalls: {
        /** One HTTP request without its answer by then is a transient failure. */
        requestTimeoutMs: values.ENGINE_REQUEST_TIMEOUT_SECONDS * 1000,
        /** Transient failures (network, time-outs, 429, 5xx) are tried again this many times. */
        retries: values.ENGINE_RETRIES,
        /** The wait before the first retry, doubled for each next one; a Retry-After replaces it. */
        retryDelayMs: values.ENGINE_RETRY_DELAY_MS,
        /** How often a running job's progress is asked for (sdwebui, midjourney). */
        pollIntervalMs: values.ENGINE_POLL_INTERVAL_MS,
      },
      /** How optimizePrompt rewrites descriptions. */
      promptOptimizer: promptOptimizerConfig(values),
      /** A generation whose engine has not delivered all 4 images by then ends in Error. */
      engineTimeoutSeconds: values.ENGINE_TIMEOUT_SECONDS,
      /** Generations one worker process runs at once. */
      concurrency: values.GENERATION_CONCURRENCY,
      /**
       * A worker holds each running generation's lock for this long and renews it; a worker that dies loses it
       * and another takes the generation over about this long later (BullMQ's stalled-job recovery).
       */
      lockSeconds: values.GENERATION_LOCK_SECONDS,
      /** How often a worker looks for generations whose job is lost or spent, and for those past their lifetime. */
      sweepSeconds: values.GENERATION_SWEEP_SECONDS,
      /**
       * A generation not Done or in Error this long after its attempt was queued ends in Error, its credit
       * returned: the bound on how long a credit is held, whatever happens to workers, Redis or the database.
       */
      maxLifetimeSeconds: values.GENERATION_MAX_LIFETIME_SECONDS,
      /** Lower-case terms that make a description refused ("description not accepted"). */
      refusedTerms:
        values.MODERATION_REFUSED_TERMS === undefined
          ? DEFAULT_REFUSED_TERMS
          : values.MODERATION_REFUSED_TERMS.split(",")
              .map((term) => term.trim().toLowerCase())
              .filter(Boolean),
      /** Generations one account may have Pending or Processing at once (0: no cap); accounts may have their own. */
      maxActivePerAccount: values.MAX_ACTIVE_GENERATIONS,
    };
  },
);

/** IMAGE_ENGINES, or IMAGE_ENGINE alone; the default must be among them. */
function configuredEngines(values: EngineValues): ImageEngineName[] {
  if (values.IMAGE_ENGINES === undefined) return [values.IMAGE_ENGINE];
  const engines = [...new Set(values.IMAGE_ENGINES.split(",").map((name) => name.trim() as ImageEngineName))];
  if (!engines.includes(values.IMAGE_ENGINE)) {
    throw new VariableProblem(
      "IMAGE_ENGINE",
      `${values.IMAGE_ENGINE} is not among IMAGE_ENGINES (${engines.join(", ")})`,
    );
  }
  return engines;
}

/** IMAGE_ENGINE_CONCURRENCY, each engine named among IMAGE_ENGINES. */
function engineConcurrency(
  values: EngineValues,
  engines: ImageEngineName[],
): Partial<Record<ImageEngineName, number>> {
  const pairs = (values.IMAGE_ENGINE_CONCURRENCY?.split(",") ?? []).map((pair) => {
    const [name = "", count] = pair.split("=").map((part) => part.trim());
    if (!engines.includes(name as ImageEngineName)) {
      throw new VariableProblem("IMAGE_ENGINE_CONCURRENCY", `${name} is not among IMAGE_ENGINES`);
    }
    return [name, Number(count)] as const;
  });
  return Object.fromEntries(pairs);
}

/** The settings of the engines configured, with the variables each cannot do without; the others absent. */
function engineServiceConfigs(values: EngineValues, engines: ImageEngineName[]) {
  const has = (engine: ImageEngineName) => engines.includes(engine);
  return {
    /** The OpenAI Images API, or a gateway that speaks it. */
    openai: has("openai")
      ? {
          /** With the version, as the OpenAI SDKs take it: https://api.openai.com/v1. */
          baseUrl: withoutTrailingSlash(values.OPENAI_BASE_URL),
          apiKey: required(values.OPENAI_API_KEY, "OPENAI_API_KEY", "openai"),
          model: values.OPENAI_IMAGE_MODEL,
          /** Absent: the model's default. */
          quality: values.OPENAI_IMAGE_QUALITY,
        }
      : undefined,
    /** AUTOMATIC1111 / Forge, started with --api. */
    sdwebui: has("sdwebui")
      ? {
          baseUrl: withoutTrailingSlash(values.SDWEBUI_BASE_URL),
          /** "user:password", as given to its --api-auth. */
          apiAuth: values.SDWEBUI_API_AUTH,
          /** The checkpoint to draw with; absent: the one the server has loaded. */
          model: values.SDWEBUI_MODEL,
          /** Absent: the server's default sampler. */
          sampler: values.SDWEBUI_SAMPLER,
          steps: values.SDWEBUI_STEPS,
          /** Pixels on the long edge; the short one follows the aspect ratio. */
          longEdge: values.SDWEBUI_LONG_EDGE,
          /** How much of an image prompt img2img redraws, 0–1 (its denoising_strength). */
          denoise: values.SDWEBUI_DENOISE,
        }
      : undefined,
    /** A midjourney-proxy server (its /mj API). */
    midjourney: has("midjourney")
      ? {
          baseUrl: withoutTrailingSlash(
            required(values.MIDJOURNEY_BASE_URL, "MIDJOURNEY_BASE_URL", "midjourney"),
          ),
          /** Sent as mj-api-secret when the proxy asks for one. */
          apiSecret: values.MIDJOURNEY_API_SECRET,
        }
      : undefined,
    /** A ComfyUI server (its /prompt, /ws, /history, /view and /upload/image API). */
    comfyui: has("comfyui")
      ? {
          baseUrl: withoutTrailingSlash(values.COMFYUI_BASE_URL),
          /** The checkpoint the default workflows load, by its file name. */
          checkpoint: values.COMFYUI_CHECKPOINT,
          sampler: values.COMFYUI_SAMPLER,
          scheduler: values.COMFYUI_SCHEDULER,
          steps: values.COMFYUI_STEPS,
          /** Pixels on the long edge; the short one follows the aspect ratio. */
          longEdge: values.COMFYUI_LONG_EDGE,
          /** How much of an image prompt the image-to-image workflow redraws, 0–1. */
          denoise: values.COMFYUI_DENOISE,
          /** A user's exported workflow (API format) with placeholders, instead of the default text-to-image one. */
          workflowPath: values.COMFYUI_WORKFLOW && resolve(values.COMFYUI_WORKFLOW),
          /** The same, instead of the default image-to-image one. */
          imageWorkflowPath: values.COMFYUI_IMAGE_WORKFLOW && resolve(values.COMFYUI_IMAGE_WORKFLOW),
          /** A workflow ComfyUI has not started by then is taken off its queue and the generation fails. */
          queueStartMs: values.COMFYUI_QUEUE_START_SECONDS * 1000,
        }
      : undefined,
  };
}

function promptOptimizerConfig(values: EngineValues) {
  if (values.PROMPT_OPTIMIZER === "builtin") return { kind: "builtin" as const };
  return {
    /** An OpenAI-compatible chat-completions API, falling back to the built-in rewriter. */
    kind: "llm" as const,
    /** With the version, as the OpenAI SDKs take it: https://api.openai.com/v1. */
    baseUrl: withoutTrailingSlash(values.PROMPT_OPTIMIZER_BASE_URL),
    /** Absent for local servers that ask for none. */
    apiKey: values.PROMPT_OPTIMIZER_API_KEY,
    model: values.PROMPT_OPTIMIZER_MODEL,
    timeoutMs: values.PROMPT_OPTIMIZER_TIMEOUT_SECONDS * 1000,
  };
}

function required<T>(value: T | undefined, name: string, engine: ImageEngineName): T {
  if (value === undefined) {
    throw new VariableProblem(name, `required when ${engine} is among the image engines`);
  }
  return value;
}
