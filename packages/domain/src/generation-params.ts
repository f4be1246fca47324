import { z } from "zod";

/**
 * What a generation may ask for: its modes, the ranges of its settings and the rule of each simple-mode
 * parameter. The prompt compiler and the request schemas (generations.schema.ts) both read them.
 */

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
/** The stylize of a request that sets none, Midjourney's own. */
export const STYLIZE_DEFAULT = 100;
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
export const ACCEPTED_PARAM_SPELLINGS = [...KNOWN_PARAM_NAMES]
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

export const GenerationParamSchema = z.object({ name: z.string(), value: z.string() }).meta({
  id: "GenerationParam",
  description: "A generation parameter; values are always returned as text.",
});
export type GenerationParam = z.infer<typeof GenerationParamSchema>;
