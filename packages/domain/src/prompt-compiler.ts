import type { z } from "zod";
import {
  asPlainWords,
  COMMAND_DEFAULTS,
  type CommandSettings,
  FLAG_PATTERN,
  findFlag,
  getCommandFlags,
  type SettingName,
  splitCommaList,
  splitCommand,
} from "./command-flags.js";
import type { EngineRequest } from "./engine-request.js";
import {
  canonicalParamName,
  type GENERATION_MODES,
  type GenerationParam,
  SIMPLE_PARAM_RULES,
  type SimpleParamName,
  type TEMPLATE_PROMPTS,
  type TIMES,
  type WEATHERS,
} from "./generation-params.js";

/**
 * The prompt compiler: both generation modes become one EngineRequest, and an EngineRequest renders back
 * to the equivalent Midjourney command. The grammar of advanced-mode flags is one table, getCommandFlags():
 * the parser, the validator and the renderer all read it.
 */

type GenerationMode = (typeof GENERATION_MODES)[number];
type TemplatePrompt = (typeof TEMPLATE_PROMPTS)[number];

export interface ParsedCommand {
  description: string;
  settings: CommandSettings;
}

export type CommandParseResult = { ok: true; command: ParsedCommand } | { ok: false; problems: string[] };

/**
 * Reads an advanced-mode prompt: a description, then flags. Every problem is reported, each naming the flag
 * as written and its rule: an unknown flag, a missing or ill-formed value, a value out of range, a flag
 * given twice (an alias counts as the same flag), or nothing before the flags.
 */
export function parseCommand(prompt: string): CommandParseResult {
  const { description, tokens } = splitCommand(prompt);
  const problems: string[] = [];
  if (description === "") problems.push("the description before the flags is empty");
  const settings: CommandSettings = {};
  const writtenBy = new Map<SettingName, string>();
  let isKnownListed = false;
  for (const token of tokens) {
    const found = findFlag(token.name);
    if (!found) {
      // The list of known flags once, with the first unknown one: a long prompt has many.
      const known = [...new Set(getCommandFlags().map((row) => `--${row.names[0]}`))];
      problems.push(`${token.written}: unknown flag${isKnownListed ? "" : ` (known: ${known.join(", ")})`}`);
      isKnownListed = true;
      continue;
    }
    const earlier = writtenBy.get(found.setting);
    if (earlier !== undefined) {
      problems.push(
        earlier === token.written
          ? `${token.written}: given twice; a flag may be given once`
          : `${token.written}: given twice (${earlier} already sets it); a flag may be given once`,
      );
      continue;
    }
    writtenBy.set(found.setting, token.written);
    const problem = found.read(token.value, settings);
    if (problem !== undefined) problems.push(`${token.written}: ${problem}`);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, command: { description, settings } };
}

/** The flags of a simple-mode prompt (any `--word` or `—word`), as written, each once. */
function findFlagsInText(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(FLAG_PATTERN), (match) => match[0]))];
}

/**
 * What is wrong with `prompt` in `mode` (spec rules 1 and 2), as messages naming the flag and the rule.
 * Without a mode (an update that changes the prompt alone) only what is wrong in both modes is reported:
 * the advanced-mode problems, as each of them needs a flag, which simple mode refuses anyway.
 */
export function findPromptProblems(prompt: string, mode: GenerationMode | undefined): string[] {
  if (mode === "simple") {
    return findFlagsInText(prompt).map(
      (written) => `flags such as ${written} are not allowed in simple mode; use params`,
    );
  }
  const parsed = parseCommand(prompt);
  return parsed.ok ? [] : parsed.problems;
}

/** Thrown by compileGeneration for a prompt that findPromptProblems refuses. */
export class PromptError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`prompt: ${problems.join("; ")}`);
    this.name = "PromptError";
    this.problems = problems;
  }
}

export interface CompileGenerationInput {
  mode: GenerationMode;
  prompt: string;
  /** Put before the description, word for word. */
  additionalPrompt?: string | undefined;
  /** Simple mode; already validated by GenerationParamsSchema. */
  params?: readonly GenerationParam[] | undefined;
  /** The optimizer's rewrite of the description; replaces the description only, never additionalPrompt. */
  optimizedDescription?: string | undefined;
}

const QUALITY_HINTS: Record<TemplatePrompt, string> = {
  realisticQuality: "high quality realistic photo",
  realisticManuel: "realistic smartphone photo",
};

/** The spec's default template in simple mode. */
const DEFAULT_TEMPLATE: TemplatePrompt = "realisticQuality";

type SimpleParamValue<K extends SimpleParamName> = z.output<(typeof SIMPLE_PARAM_RULES)[K]>;

/** Where each simple-mode param goes in the EngineRequest. */
const SIMPLE_PARAM_FIELDS: {
  [K in SimpleParamName]: (value: SimpleParamValue<K>) => Partial<EngineRequest>;
} = {
  // No engine has a notion of the live service's subject mode: kept with the generation, read by none.
  sujetMode: () => ({}),
  templatePrompt: (template) => ({ template, qualityHints: [QUALITY_HINTS[template]] }),
  angle: (angle) => ({ angle }),
  photographe: (photographer) => ({ photographer }),
  time: (timeOfDay) => ({ timeOfDay }),
  weather: (weather) => ({ weather }),
  format: (aspectRatio) => ({ aspectRatio }),
  camera: (camera) => ({ camera }),
  interdiction: (interdiction) => ({ negative: splitCommaList(interdiction) }),
  version: (version) => ({ advanced: { version } }),
  chaos: (chaos) => ({ chaos }),
  stylize: (stylize) => ({ stylize }),
  fromImageUrl: (imagePrompt) => ({ imagePrompt }),
  // Chooses the engine (see the API's engine choice), not what it draws.
  engine: () => ({}),
};

function simpleParamFields<K extends SimpleParamName>(name: K, value: string): Partial<EngineRequest> {
  // The rule's parse gives the typed value (a number for chaos); TypeScript cannot follow K through it.
  const typed = SIMPLE_PARAM_RULES[name].parse(value) as SimpleParamValue<K>;
  return SIMPLE_PARAM_FIELDS[name](typed);
}

function requestFrom(description: string, settings: CommandSettings): EngineRequest {
  const { aspectRatio, chaos, stylize, negative, seed, ...advanced } = settings;
  return {
    description,
    negative: negative ?? [...COMMAND_DEFAULTS.negative],
    aspectRatio: aspectRatio ?? COMMAND_DEFAULTS.aspectRatio,
    chaos: chaos ?? COMMAND_DEFAULTS.chaos,
    stylize: stylize ?? COMMAND_DEFAULTS.stylize,
    seed,
    qualityHints: [],
    template: undefined,
    timeOfDay: undefined,
    weather: undefined,
    camera: undefined,
    angle: undefined,
    photographer: undefined,
    imagePrompt: undefined,
    advanced,
  };
}

/**
 * "<additionalPrompt>. <description>": the additional text comes first, word for word; the full stop is
 * left out when it already ends with punctuation.
 */
function joinDescription(additionalPrompt: string | undefined, description: string): string {
  const before = additionalPrompt?.trim() ?? "";
  if (before === "") return description;
  return /[.!?;:,]$/.test(before) ? `${before} ${description}` : `${before}. ${description}`;
}

/**
 * Compiles a generation into what the engines receive. Advanced mode reads the flags of the prompt;
 * simple mode maps the params, with templatePrompt "realisticQuality" by default as the spec says.
 * Throws PromptError for a prompt that findPromptProblems refuses.
 */
export function compileGeneration(input: CompileGenerationInput): EngineRequest {
  const problems = findPromptProblems(input.prompt, input.mode);
  if (problems.length > 0) throw new PromptError(problems);
  const request = input.mode === "advanced" ? compileCommand(input.prompt) : compileSimple(input);
  const optimized = input.optimizedDescription?.trim();
  const description = optimized ? optimized : request.description;
  return { ...request, description: joinDescription(input.additionalPrompt, description) };
}

function compileCommand(prompt: string): EngineRequest {
  const parsed = parseCommand(prompt);
  if (!parsed.ok) throw new PromptError(parsed.problems);
  return requestFrom(parsed.command.description, parsed.command.settings);
}

function compileSimple(input: CompileGenerationInput): EngineRequest {
  const request: EngineRequest = {
    ...requestFrom(input.prompt.trim(), {}),
    ...SIMPLE_PARAM_FIELDS.templatePrompt(DEFAULT_TEMPLATE),
  };
  for (const param of input.params ?? []) {
    const name = canonicalParamName(param.name);
    if (!name) throw new PromptError([`unknown parameter "${param.name}"`]);
    Object.assign(request, simpleParamFields(name, param.value));
  }
  return request;
}

const TIME_WORDS: Record<(typeof TIMES)[number], string> = {
  sunrise: "at sunrise",
  morning: "in the morning",
  afternoon: "in the afternoon",
  sunset: "at sunset",
  evening: "in the evening",
  "golden hour": "at golden hour",
  night: "at night",
  midnight: "at midnight",
};

const WEATHER_WORDS: Record<(typeof WEATHERS)[number], string> = {
  sunny: "in sunny weather",
  cloudy: "under a cloudy sky",
  foggy: "in the fog",
  rainy: "in the rain",
  thunderstorm: "during a thunderstorm",
  snowy: "in the snow",
};

/**
 * The description with what has no flag (quality hints, time of day, weather, camera) put into words: the
 * text part of the command, and the whole prompt of engines that read plain text.
 */
export function renderDescription(request: EngineRequest): string {
  return [
    asPlainWords(request.description),
    ...request.qualityHints,
    request.timeOfDay && TIME_WORDS[request.timeOfDay],
    request.weather && WEATHER_WORDS[request.weather],
    request.camera && `shot on ${asPlainWords(request.camera)}`,
    request.angle && `camera angle: ${asPlainWords(request.angle)}`,
    request.photographer && `in the style of the photographer ${asPlainWords(request.photographer)}`,
  ]
    .filter((part): part is string => Boolean(part))
    .join(", ");
}

/**
 * The equivalent Midjourney command: the image prompt if any, the description in words (renderDescription),
 * then the flags in the order of getCommandFlags(), those at their default left out, so the command means
 * the same thing.
 */
export function renderCommand(request: EngineRequest): string {
  const { aspectRatio, chaos, stylize, negative, seed } = request;
  const settings: CommandSettings = { aspectRatio, chaos, stylize, negative, seed, ...request.advanced };
  const rendered = new Set<SettingName>();
  const flags: string[] = [];
  for (const row of getCommandFlags()) {
    if (rendered.has(row.setting)) continue;
    rendered.add(row.setting);
    const text = row.render(settings);
    if (text !== undefined) flags.push(text);
  }
  // Midjourney reads image prompts as the links before the text.
  const imagePrompts = request.imagePrompt ? [request.imagePrompt] : [];
  return [...imagePrompts, renderDescription(request), ...flags].join(" ");
}
