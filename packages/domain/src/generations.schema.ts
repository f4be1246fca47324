import { z } from "zod";
import {
  DateTimeSchema,
  MetaDataInputSchema,
  MetaDataSchema,
  QueryPaginationSchema,
} from "./common.schema.js";
import { ImageSchema } from "./images.schema.js";
import { findPromptProblems } from "./prompt-compiler.js";

/** Generation status values of the spec; the names are those of its States table. */
export const GenerationStatus = { Create: 0, Pending: 1, Processing: 2, Done: 3, Error: 4 } as const;
export type GenerationStatus = (typeof GenerationStatus)[keyof typeof GenerationStatus];
export type GenerationStatusName = keyof typeof GenerationStatus;
export const GENERATION_STATUS_NAMES = Object.keys(GenerationStatus) as GenerationStatusName[];
export const GenerationStatusSchema = z
  .union(Object.values(GenerationStatus).map((value) => z.literal(value)))
  .describe("0 Create, 1 Pending, 2 Processing, 3 Done, 4 Error.");

export const IMAGES_PER_GENERATION = 4;
export const GENERATION_MODES = ["simple", "advanced"] as const;
export const PROCESS_MODES = ["fast", "relax"] as const;

export const TEMPLATE_PROMPTS = ["realisticQuality", "realisticManuel"] as const;
export const FORMATS = ["1:1", "3:2", "2:3", "4:7", "7:4", "5:4", "4:5", "16:9", "9:16"] as const;
export const WEATHERS = ["sunny", "cloudy", "foggy", "rainy", "thunderstorm", "snowy"] as const;
export const TIMES = [
  "sunrise",
  "morning",
  "afternoon",
  "sunset",
  "evening",
  "golden hour",
  "night",
  "midnight",
] as const;

/** The image engines a deployment may draw with (IMAGE_ENGINES); a generation may name one (`engine`). */
export const IMAGE_ENGINE_NAMES = ["procedural", "openai", "sdwebui", "midjourney", "comfyui"] as const;
export type ImageEngineName = (typeof IMAGE_ENGINE_NAMES)[number];

export const CHAOS_MAX = 100;
/** The spec's text says 0-100 but its value form 0-1000; we accept the wider range, as Midjourney does. */
export const STYLIZE_MAX = 1000;
export const PROMPT_MAX_LENGTH = 4096;
export const ADDITIONAL_PROMPT_MAX_LENGTH = 1024;
export const NAME_MAX_LENGTH = 200;
export const CAMERA_MAX_LENGTH = 100;
export const INTERDICTION_MAX_LENGTH = 500;

/** A whole number given as a JSON number or as its text ("20"), as live clients send. */
function integerBetween(min: number, max: number) {
  return z.preprocess(
    (value) => (typeof value === "string" && value.trim() !== "" ? Number(value) : value),
    z
      .number({ error: (issue) => (issue.code === "invalid_type" ? "must be a whole number" : undefined) })
      .int("must be a whole number")
      .min(min)
      .max(max),
  );
}

/** Free-text parameter values (camera, angle, photographer, subject mode): a short phrase. */
const PARAM_TEXT_MAX_LENGTH = 100;
export const PARAM_URL_MAX_LENGTH = 2048;
const shortText = () => z.string().trim().min(1).max(PARAM_TEXT_MAX_LENGTH);

/**
 * The value rule of each simple-mode parameter, keyed by the name the live service spells (and stores,
 * and answers), in the order its clients list them. The spec's table writes `Time`: an accepted alias.
 */
export const SIMPLE_PARAM_RULES = {
  sujetMode: shortText().describe("Subject mode; kept with the generation, no engine reads it yet."),
  templatePrompt: z.enum(TEMPLATE_PROMPTS),
  angle: shortText().describe("Camera angle, in words."),
  photographe: shortText().describe("A photographer whose style to follow."),
  time: z.enum(TIMES),
  weather: z.enum(WEATHERS),
  format: z.enum(FORMATS),
  camera: z.string().trim().min(1).max(CAMERA_MAX_LENGTH),
  interdiction: z
    .string()
    .trim()
    .max(INTERDICTION_MAX_LENGTH)
    .describe("Unwanted elements, separated by commas."),
  version: z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?$/, "must be a version number such as 6, 6.1 or 7")
    .describe("Midjourney model version (--v)."),
  chaos: integerBetween(0, CHAOS_MAX),
  stylize: integerBetween(0, STYLIZE_MAX),
  fromImageUrl: z
    .url({ protocol: /^https?$/, error: "must be an http or https URL" })
    .max(PARAM_URL_MAX_LENGTH)
    .describe(
      "An image to start from: the init image of sdwebui and comfyui, the input image of openai's edits, a Midjourney image prompt.",
    ),
  engine: z
    .enum(IMAGE_ENGINE_NAMES)
    .describe("The image engine to draw with, among those the server runs; absent: the server's default."),
} as const;
export type SimpleParamName = keyof typeof SIMPLE_PARAM_RULES;

/** Other spellings clients send, each mapped to the live service's name. */
const PARAM_NAME_ALIASES: ReadonlyMap<string, SimpleParamName> = new Map([["Time", "time"]]);

const KNOWN_PARAM_NAMES = new Set(Object.keys(SIMPLE_PARAM_RULES) as SimpleParamName[]);

/** Every accepted spelling, for messages: "time (or Time)". */
const ACCEPTED_PARAM_SPELLINGS = [...KNOWN_PARAM_NAMES]
  .map((name) => {
    const aliases = [...PARAM_NAME_ALIASES].filter(([, target]) => target === name).map(([alias]) => alias);
    return aliases.length > 0 ? `${name} (or ${aliases.join(", ")})` : name;
  })
  .join(", ");

/** The live service's name of a parameter, or undefined; a Set lookup, so `constructor` is no name. */
export function canonicalParamName(name: string): SimpleParamName | undefined {
  const canonical = PARAM_NAME_ALIASES.get(name) ?? name;
  return KNOWN_PARAM_NAMES.has(canonical as SimpleParamName) ? (canonical as SimpleParamName) : undefined;
}

const ParamInputSchema = z.object({
  name: z.string().max(100),
  value: z.union([z.string().max(PARAM_URL_MAX_LENGTH), z.number()]),
});

export const GenerationParamSchema = z.object({ name: z.string(), value: z.string() }).meta({
  id: "GenerationParam",
  description: "A generation parameter; values are always returned as text.",
});
export type GenerationParam = z.infer<typeof GenerationParamSchema>;

/**
 * Simple-mode params: known names, once each, values per SIMPLE_PARAM_RULES; returned with the live
 * service's names and values as text.
 */
export const GenerationParamsSchema = z
  .array(ParamInputSchema)
  .max(Object.keys(SIMPLE_PARAM_RULES).length)
  .transform((params, ctx): GenerationParam[] => {
    const seen = new Set<SimpleParamName>();
    return params.map((param, index) => {
      const canonical = canonicalParamName(param.name);
      if (!canonical) {
        ctx.addIssue({
          code: "custom",
          path: [index, "name"],
          message: `unknown parameter "${param.name}"; known: ${ACCEPTED_PARAM_SPELLINGS}`,
        });
      } else if (seen.has(canonical)) {
        ctx.addIssue({
          code: "custom",
          path: [index, "name"],
          message: `parameter "${param.name}" is given twice`,
        });
      } else {
        seen.add(canonical);
        const result = SIMPLE_PARAM_RULES[canonical].safeParse(param.value);
        for (const issue of result.error?.issues ?? []) {
          ctx.addIssue({
            code: "custom",
            path: [index, "value"],
            message: `${param.name}: ${issue.message}`,
          });
        }
      }
      return { name: canonical ?? param.name, value: String(param.value) };
    });
  });

const generationFields = {
  name: z.string().trim().min(1).max(NAME_MAX_LENGTH).describe("Label of the generation."),
  prompt: z
    .string()
    .trim()
    .min(1)
    .max(PROMPT_MAX_LENGTH)
    .describe(
      "Simple mode: a plain description, without flags of the third-party tool. Advanced mode: a full command of the third-party tool (Midjourney syntax) with its flags.",
    ),
  additionalPrompt: z
    .string()
    .max(ADDITIONAL_PROMPT_MAX_LENGTH)
    .optional()
    .describe("Text put before the description; never rewritten by optimizePrompt."),
  mode: z.enum(GENERATION_MODES),
  optimizePrompt: z
    .boolean()
    .optional()
    .describe("Simple mode only: rewrite the description into a fuller one."),
  params: GenerationParamsSchema.optional().describe("Simple mode only."),
  tags: z.array(z.string().trim().min(1).max(50)).max(20).optional(),
  metaData: MetaDataInputSchema.optional(),
  processMode: z
    .enum(PROCESS_MODES)
    .optional()
    .describe("Dedicated plan only. Defaults to fast while the account's fast quota lasts, then relax."),
};

function refuseSimpleOnlyFieldsInAdvancedMode(
  body: { mode?: string; params?: unknown; optimizePrompt?: unknown },
  ctx: z.RefinementCtx,
): void {
  if (body.mode !== "advanced") return;
  if (body.params !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["params"],
      message: "not allowed in advanced mode: put flags in the prompt",
    });
  }
  if (body.optimizePrompt !== undefined) {
    ctx.addIssue({ code: "custom", path: ["optimizePrompt"], message: "not allowed in advanced mode" });
  }
}

/**
 * Spec rules 1 and 2: no flags in a simple-mode prompt, well-formed flags in an advanced-mode one. An update
 * that changes the prompt without the mode can only be refused for what is wrong in both modes; the service
 * checks the prompt against the generation's stored mode.
 */
function refuseMalformedPrompt(
  body: { mode?: (typeof GENERATION_MODES)[number]; prompt?: string },
  ctx: z.RefinementCtx,
): void {
  if (body.prompt === undefined) return;
  for (const message of findPromptProblems(body.prompt, body.mode)) {
    ctx.addIssue({ code: "custom", path: ["prompt"], message });
  }
}

export const CreateImageGenerationRequestSchema = z
  .strictObject(generationFields)
  .superRefine(refuseSimpleOnlyFieldsInAdvancedMode)
  .superRefine(refuseMalformedPrompt)
  .meta({ id: "CreateImageGenerationRequest" });
export type CreateImageGenerationRequest = z.infer<typeof CreateImageGenerationRequestSchema>;

export const UpdateImageGenerationRequestSchema = z
  .strictObject(generationFields)
  .partial()
  .superRefine(refuseSimpleOnlyFieldsInAdvancedMode)
  .superRefine(refuseMalformedPrompt)
  .meta({ id: "UpdateImageGenerationRequest", description: "Only the fields to change." });
export type UpdateImageGenerationRequest = z.infer<typeof UpdateImageGenerationRequestSchema>;

export const DeleteImageGenerationsRequestSchema = z
  .object({
    printIds: z.array(z.string().min(1)).min(1).max(100).describe("Generations to delete; at least one."),
  })
  .meta({ id: "DeleteImageGenerationsRequest" });
export type DeleteImageGenerationsRequest = z.infer<typeof DeleteImageGenerationsRequestSchema>;

export const DeleteImageGenerationsResponseSchema = z
  .object({
    deleted: z.array(z.string()).describe("The generations deleted, in the order asked."),
    notFound: z
      .array(z.string())
      .describe(
        "The ids that name no generation of the account (the live service answers 200 for them too).",
      ),
  })
  .meta({ id: "DeleteImageGenerationsResponse" });
export type DeleteImageGenerationsResponse = z.infer<typeof DeleteImageGenerationsResponseSchema>;

export const GENERATION_SORTS = ["newest", "oldest"] as const;
export const FindImageGenerationsQuerySchema = QueryPaginationSchema.extend({
  sort: z.enum(GENERATION_SORTS).default("newest"),
  name: z
    .string()
    .max(NAME_MAX_LENGTH)
    .optional()
    .describe("Only generations whose name contains this text."),
  tag: z.string().max(50).optional().describe("Only generations with this tag."),
  status: z.coerce
    .number()
    .pipe(GenerationStatusSchema)
    .optional()
    .describe("Only generations in this status."),
});
export type FindImageGenerationsQuery = z.infer<typeof FindImageGenerationsQuerySchema>;

export const ImageGenerationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prompt: z.string(),
    additionalPrompt: z.string().optional(),
    mode: z.enum(GENERATION_MODES),
    optimizePrompt: z.boolean(),
    optimizedPrompt: z
      .string()
      .optional()
      .describe(
        "With optimizePrompt: the description as rewritten before generation (prompt keeps the original).",
      ),
    processMode: z.enum(PROCESS_MODES).optional(),
    status: GenerationStatusSchema,
    params: z.array(GenerationParamSchema),
    images: z.array(ImageSchema),
    nbImages: z.number().int(),
    tags: z.array(z.string()),
    metaData: MetaDataSchema,
    failureReason: z.string().optional().describe("Why the generation is in Error."),
    progress: z
      .number()
      .int()
      .min(0)
      .max(100)
      .optional()
      .describe(
        "While Processing, for image engines that report it: how far the engine says it is, in percent. Images still arrive one by one in `images`.",
      ),
    engine: z
      .object({
        name: z
          .string()
          .describe("The engine that drew it: procedural, openai, sdwebui, midjourney or comfyui."),
        model: z.string().optional().describe("The engine's model, when it names one."),
      })
      .optional()
      .describe("The image engine chosen for the generation, which drew its images or failed to."),
    createdAt: DateTimeSchema,
  })
  .meta({ id: "ImageGeneration" });
export type ImageGeneration = z.infer<typeof ImageGenerationSchema>;

export const ImageGenerationListSchema = z
  .object({ filteredResults: z.number().int().min(0), prints: z.array(ImageGenerationSchema) })
  .meta({ id: "ImageGenerationList" });
export type ImageGenerationList = z.infer<typeof ImageGenerationListSchema>;

export const PrintIdParamsSchema = z.object({ printId: z.string().describe("The generation's id.") });
export const ImageGenerationIdParamsSchema = z.object({
  imageGenerationId: z.string().describe("The generation's id."),
});
