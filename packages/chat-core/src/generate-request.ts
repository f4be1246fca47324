import { randomInt } from "node:crypto";
import {
  type CreateImageGenerationRequest,
  CreateImageGenerationRequestSchema,
  compileGeneration,
  type GenerationParam,
  type ImageGeneration,
  NAME_MAX_LENGTH,
  renderCommand,
  type TEMPLATE_PROMPTS,
} from "@imagehub/domain";

/**
 * What a chat user asks for, whichever way they asked (typed command options, flags in free text, a
 * modal): the chat names of the simple-mode parameters, or a raw third-party command for advanced mode.
 */
export type GenerateOptions =
  | {
      mode: "simple";
      prompt: string;
      format?: string;
      weather?: string;
      time?: string;
      template?: string;
      chaos?: number | string;
      stylize?: number | string;
      camera?: string;
      avoid?: string;
      optimize?: boolean;
      fast?: boolean;
    }
  | { mode: "advanced"; command: string; fast?: boolean };

export type SimpleGenerateOptions = Extract<GenerateOptions, { mode: "simple" }>;

/** The chat option behind each API parameter, so that problems name what the user typed. */
export const OPTION_OF_PARAM = {
  format: "format",
  weather: "weather",
  Time: "time",
  templatePrompt: "template",
  chaos: "chaos",
  stylize: "stylize",
  camera: "camera",
  interdiction: "avoid",
} as const satisfies Record<string, keyof SimpleGenerateOptions>;

/** The options that take a value, in the order chat surfaces list them. */
export const VALUE_OPTIONS = Object.values(OPTION_OF_PARAM);

/** Friendlier names of the two templates; the API's own names are accepted too. */
export const TEMPLATE_CHOICES = {
  realistic: "realisticQuality",
  smartphone: "realisticManuel",
} as const satisfies Record<string, (typeof TEMPLATE_PROMPTS)[number]>;

export type CreateRequestResult =
  | { ok: true; request: CreateImageGenerationRequest }
  | { ok: false; problems: string[] };

/**
 * Turns chat options into a create request checked by the API's own schema, so that a chat user hears
 * about a bad value before anything is created, in the words of the option they used.
 */
export function toCreateRequest(options: GenerateOptions): CreateRequestResult {
  const params = options.mode === "simple" ? paramsOf(options) : [];
  const body =
    options.mode === "advanced"
      ? { name: nameOf(options.command), prompt: options.command, mode: "advanced" as const }
      : {
          name: nameOf(options.prompt),
          prompt: options.prompt,
          mode: "simple" as const,
          ...(options.optimize && { optimizePrompt: true }),
          params: params.map(({ param }) => param),
        };
  const parsed = CreateImageGenerationRequestSchema.safeParse({
    ...body,
    ...(options.fast && { processMode: "fast" }),
  });
  if (parsed.success) return { ok: true, request: parsed.data };
  return {
    ok: false,
    problems: parsed.error.issues.map((issue) => {
      const [field, index] = issue.path;
      const option = typeof index === "number" ? params[index]?.option : undefined;
      // The schema words a parameter's problem as "<API name>: <rule>".
      if (field === "params" && option) return `${option}: ${issue.message.replace(/^[^:]*: /, "")}`;
      if (field === "prompt" && options.mode === "advanced") return `command: ${issue.message}`;
      return `${String(field ?? "request")}: ${issue.message}`;
    }),
  };
}

function paramsOf(options: SimpleGenerateOptions): { option: string; param: GenerationParam }[] {
  const params: { option: string; param: GenerationParam }[] = [];
  for (const [name, option] of Object.entries(OPTION_OF_PARAM)) {
    const raw = options[option];
    if (raw === undefined || raw === "") continue;
    const value = name === "templatePrompt" ? templateOf(String(raw)) : String(raw);
    params.push({ option, param: { name: name === "Time" ? "time" : name, value } });
  }
  return params;
}

function templateOf(value: string): string {
  return TEMPLATE_CHOICES[value.toLowerCase() as keyof typeof TEMPLATE_CHOICES] ?? value;
}

/** The generation's name: its description, cut at a word boundary to the API's limit. */
export function nameOf(prompt: string): string {
  const description = prompt.split(/\s--/)[0]?.trim() || prompt.trim();
  if (description.length <= NAME_MAX_LENGTH) return description;
  const cut = description.slice(0, NAME_MAX_LENGTH - 1);
  const lastSpace = cut.lastIndexOf(" ");
  return `${lastSpace > 0 ? cut.slice(0, lastSpace) : cut}…`;
}

/** The largest seed the third-party syntax takes (--seed 0…4294967295). */
const SEED_MAX = 4_294_967_295;

/**
 * What `Again` creates: the generation's request once more with a new seed, so that it draws new images
 * (the same request draws the same ones: engines derive the seed of a request without one from its text).
 * imagehub's simple mode takes no seed, so a simple request is asked as its equivalent command, the one
 * the engines receive for it (the prompt compiler's renderCommand); an advanced command gets its seed
 * replaced, however it was written. Every other choice is kept, fast mode included.
 */
export function againRequest(
  generation: Pick<
    ImageGeneration,
    "name" | "prompt" | "additionalPrompt" | "mode" | "params" | "optimizedPrompt" | "processMode"
  >,
  seed: number = randomInt(0, SEED_MAX),
): CreateImageGenerationRequest {
  const request = compileGeneration({
    mode: generation.mode,
    prompt: generation.prompt,
    additionalPrompt: generation.additionalPrompt,
    params: generation.params,
    // The description as the engines drew it: the optimizer is not asked again.
    optimizedDescription: generation.optimizedPrompt,
  });
  return {
    name: generation.name,
    mode: "advanced",
    prompt: renderCommand({ ...request, seed }),
    // Fast is a choice only a dedicated-plan account can have made; every generation of any other shows
    // relax, which such an account may not ask for by name.
    ...(generation.processMode === "fast" && { processMode: "fast" as const }),
  };
}

/**
 * What `V n` creates: a new generation that varies image n. A simple-mode generation is asked again with
 * the image as its image prompt (the `fromImageUrl` parameter, replacing any it had); an advanced command
 * cannot name one, and is asked again with a new seed, as `Again` does.
 */
export function varyRequest(
  generation: Parameters<typeof againRequest>[0] & Pick<ImageGeneration, "optimizePrompt">,
  imageUrl: string,
): CreateImageGenerationRequest {
  if (generation.mode === "advanced") return againRequest(generation);
  return {
    name: generation.name,
    prompt: generation.prompt,
    mode: "simple",
    ...(generation.additionalPrompt !== undefined && { additionalPrompt: generation.additionalPrompt }),
    ...(generation.optimizePrompt && { optimizePrompt: true }),
    params: [
      ...generation.params.filter((param) => param.name !== "fromImageUrl"),
      { name: "fromImageUrl", value: imageUrl },
    ],
    ...(generation.processMode === "fast" && { processMode: "fast" as const }),
  };
}
