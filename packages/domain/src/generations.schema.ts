import { z } from "zod";
import {
  DateTimeSchema,
  MetaDataInputSchema,
  MetaDataSchema,
  QueryPaginationSchema,
} from "./common.schema.js";
import {
  ACCEPTED_PARAM_SPELLINGS,
  ADDITIONAL_PROMPT_MAX_LENGTH,
  canonicalParamName,
  GENERATION_MODES,
  type GenerationParam,
  GenerationParamSchema,
  NAME_MAX_LENGTH,
  PARAM_URL_MAX_LENGTH,
  PROCESS_MODES,
  PROMPT_MAX_LENGTH,
  SIMPLE_PARAM_RULES,
  type SimpleParamName,
} from "./generation-params.js";
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

const ParamInputSchema = z.object({
  name: z.string().max(100),
  value: z.union([z.string().max(PARAM_URL_MAX_LENGTH), z.number()]),
});

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
