import { readFileSync } from "node:fs";
import { IMAGES_PER_GENERATION } from "@imagehub/domain";
import { ConfigError } from "../common/config.js";

/** A workflow in ComfyUI's API format ("Export (API)"): node id → its class and inputs. */
export type Workflow = Record<string, { class_type: string; inputs: Record<string, unknown> }>;

/**
 * What imagehub puts into a workflow, written `{{name}}` in it: as a whole value (`"seed": "{{seed}}"`) it
 * is replaced by the value with its type (a number for seed, sizes, steps, cfg and denoise); inside a
 * longer text (`"{{prompt}}, masterpiece"`) by its text.
 */
export const PLACEHOLDERS = [
  "prompt",
  "negative",
  "seed",
  "width",
  "height",
  "image",
  "checkpoint",
  "steps",
  "cfg",
  "sampler",
  "scheduler",
  "denoise",
  "batch",
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type PlaceholderValues = Record<Placeholder, string | number>;

/** Without these a workflow could not draw what was asked: refused at start. */
export const TEXT_WORKFLOW_PLACEHOLDERS: readonly Placeholder[] = [
  "prompt",
  "negative",
  "seed",
  "width",
  "height",
];
export const IMAGE_WORKFLOW_PLACEHOLDERS: readonly Placeholder[] = ["prompt", "negative", "seed", "image"];

const PLACEHOLDER = /\{\{\s*([a-z]+)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*([a-z]+)\s*\}\}$/;

const loader = {
  "4": { class_type: "CheckpointLoaderSimple", inputs: { ckpt_name: "{{checkpoint}}" } },
  "6": { class_type: "CLIPTextEncode", inputs: { text: "{{prompt}}", clip: ["4", 1] } },
  "7": { class_type: "CLIPTextEncode", inputs: { text: "{{negative}}", clip: ["4", 1] } },
};
const sampler = (latent: string, denoise: string | number) => ({
  class_type: "KSampler",
  inputs: {
    seed: "{{seed}}",
    steps: "{{steps}}",
    cfg: "{{cfg}}",
    sampler_name: "{{sampler}}",
    scheduler: "{{scheduler}}",
    denoise,
    model: ["4", 0],
    positive: ["6", 0],
    negative: ["7", 0],
    latent_image: [latent, 0],
  },
});
const decodeAndSave = {
  "8": { class_type: "VAEDecode", inputs: { samples: ["3", 0], vae: ["4", 2] } },
  "9": { class_type: "SaveImage", inputs: { filename_prefix: "imagehub", images: ["8", 0] } },
};

/** Text to image: a batch of 4 from an empty latent of the size asked for, with the checkpoint named. */
export const DEFAULT_TEXT_WORKFLOW: Workflow = {
  ...loader,
  "5": {
    class_type: "EmptyLatentImage",
    inputs: { width: "{{width}}", height: "{{height}}", batch_size: "{{batch}}" },
  },
  "3": sampler("5", 1),
  ...decodeAndSave,
};

/**
 * Image to image: the image prompt scaled and cropped to the size asked for, encoded, repeated 4 times and
 * partly redrawn (`denoise`), each image of the batch with its own noise.
 */
export const DEFAULT_IMAGE_WORKFLOW: Workflow = {
  ...loader,
  "10": { class_type: "LoadImage", inputs: { image: "{{image}}" } },
  "11": {
    class_type: "ImageScale",
    inputs: {
      image: ["10", 0],
      upscale_method: "lanczos",
      width: "{{width}}",
      height: "{{height}}",
      crop: "center",
    },
  },
  "12": { class_type: "VAEEncode", inputs: { pixels: ["11", 0], vae: ["4", 2] } },
  "13": { class_type: "RepeatLatentBatch", inputs: { samples: ["12", 0], amount: "{{batch}}" } },
  "3": sampler("13", "{{denoise}}"),
  ...decodeAndSave,
};

/** The images a generation draws: what `{{batch}}` holds. */
export const BATCH_SIZE = IMAGES_PER_GENERATION;

/**
 * A user's exported workflow, refused (ConfigError) unless it is in the API format and holds every
 * placeholder of `required`, each missing one named; placeholders imagehub does not know are refused too.
 */
export function loadWorkflow(path: string, variable: string, required: readonly Placeholder[]): Workflow {
  const where = `${variable} (${path})`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration: ${where}: not a readable JSON file (${(error as Error).message})`,
    );
  }
  const problems = workflowProblems(parsed, required);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${where}: ${problems.join("; ")}`);
  return parsed as Workflow;
}

/** Why `workflow` cannot be used, or nothing. */
export function workflowProblems(workflow: unknown, required: readonly Placeholder[]): string[] {
  if (typeof workflow !== "object" || workflow === null || Array.isArray(workflow)) {
    return ["not a workflow: expected an object of nodes"];
  }
  if ("nodes" in workflow && "links" in workflow) {
    return ["a workflow in ComfyUI's UI format: export it with Export (API)"];
  }
  const malformed = Object.entries(workflow).filter(
    ([, node]) => typeof node !== "object" || node === null || !("class_type" in node) || !("inputs" in node),
  );
  if (malformed.length > 0) {
    return [`nodes without class_type and inputs: ${malformed.map(([id]) => id).join(", ")}`];
  }
  const found = new Set(
    [...JSON.stringify(workflow).matchAll(PLACEHOLDER)].map((match) => match[1] as string),
  );
  const problems: string[] = [];
  const missing = required.filter((name) => !found.has(name));
  if (missing.length > 0) {
    problems.push(`placeholders missing: ${missing.map((name) => `{{${name}}}`).join(", ")}`);
  }
  const unknown = [...found].filter((name) => !(PLACEHOLDERS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    problems.push(
      `unknown placeholders: ${unknown.map((name) => `{{${name}}}`).join(", ")} (known: ${PLACEHOLDERS.join(", ")})`,
    );
  }
  return problems;
}

/** The workflow with every placeholder replaced; the workflow itself is left as it was. */
export function fillWorkflow(workflow: Workflow, values: PlaceholderValues): Workflow {
  return fill(workflow, values) as Workflow;
}

function fill(value: unknown, values: PlaceholderValues): unknown {
  if (typeof value === "string") {
    const whole = WHOLE_PLACEHOLDER.exec(value);
    if (whole) return values[whole[1] as Placeholder];
    return value.replace(PLACEHOLDER, (_, name: string) => String(values[name as Placeholder]));
  }
  if (Array.isArray(value)) return value.map((item) => fill(item, values));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item, values)]));
  }
  return value;
}

/** Whether the workflow names its checkpoint through `{{checkpoint}}` (then the engine's model). */
export function usesPlaceholder(workflow: Workflow, name: Placeholder): boolean {
  return [...JSON.stringify(workflow).matchAll(PLACEHOLDER)].some((match) => match[1] === name);
}
