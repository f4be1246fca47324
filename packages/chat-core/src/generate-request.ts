import {
  type CreateImageGenerationRequest,
  CreateImageGenerationRequestSchema,
  type GenerationParam,
  NAME_MAX_LENGTH,
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
