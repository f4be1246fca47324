import type { z } from "zod";
import { type AdvancedFlags, type EngineRequest, STYLIZE_DEFAULT } from "./engine-request.js";
import {
  CHAOS_MAX,
  canonicalParamName,
  type GENERATION_MODES,
  type GenerationParam,
  SIMPLE_PARAM_RULES,
  type SimpleParamName,
  STYLIZE_MAX,
  type TEMPLATE_PROMPTS,
  type TIMES,
  type WEATHERS,
} from "./generations.schema.js";

/**
 * The prompt compiler: both generation modes become one EngineRequest, and an EngineRequest renders back
 * to the equivalent Midjourney command. The grammar of advanced-mode flags is one table, getCommandFlags():
 * the parser, the validator and the renderer all read it.
 */

type GenerationMode = (typeof GENERATION_MODES)[number];
type TemplatePrompt = (typeof TEMPLATE_PROMPTS)[number];

/** What the flags of a command set: the command-side fields of EngineRequest, the advanced ones flattened. */
export type CommandSettings = Partial<
  Pick<EngineRequest, "aspectRatio" | "chaos" | "stylize" | "negative" | "seed">
> &
  AdvancedFlags;
type SettingName = keyof CommandSettings;
type SettingValue<K extends SettingName> = NonNullable<CommandSettings[K]>;

/** The values an EngineRequest has when neither a flag nor a simple-mode param sets them. */
const COMMAND_DEFAULTS = {
  aspectRatio: "1:1",
  chaos: 0,
  stylize: STYLIZE_DEFAULT,
  negative: [] as string[],
} as const satisfies CommandSettings;

/** How a flag's value is written: the rule (for messages), how to read it and how to write it back. */
interface ValueKind<T> {
  /** "required": `--chaos 10`; "optional": `--niji` or `--niji 6`; "none": `--tile`. */
  takes: "required" | "optional" | "none";
  rule: string;
  /** The value, or undefined when `text` breaks the rule; `text` is "" when none was given. */
  read(text: string): T | undefined;
  /** The text after the flag's name; "" for a flag without value. */
  write(value: T): string;
}

/** One row of getCommandFlags(), with its value kind closed over so rows of every type sit in one list. */
export interface CommandFlag {
  /** Without dashes; the first one is the name the renderer writes. */
  names: readonly [string, ...string[]];
  /** Where the value goes; two rows may share one (`--style raw` and `--raw`), then only one may be given. */
  setting: SettingName;
  rule: string;
  /** Reads `text` into `settings`; returns what is wrong with it, if anything. */
  read(text: string, settings: CommandSettings): string | undefined;
  /** `--name value`, or undefined when the setting is absent or at its default. */
  render(settings: CommandSettings): string | undefined;
}

function flag<K extends SettingName>(
  setting: K,
  names: readonly [string, ...string[]],
  kind: ValueKind<SettingValue<K>>,
): CommandFlag {
  const defaults: CommandSettings = COMMAND_DEFAULTS;
  const fallback = defaults[setting];
  return {
    names,
    setting,
    rule: kind.rule,
    read(text, settings) {
      const value = kind.read(text);
      if (value === undefined) {
        return text === "" && kind.takes === "required" ? `missing value; ${kind.rule}` : kind.rule;
      }
      settings[setting] = value;
      return undefined;
    },
    render(settings) {
      const value = settings[setting];
      if (value === undefined) return undefined;
      const text = kind.write(value);
      if (fallback !== undefined && text === kind.write(fallback)) return undefined;
      return text === "" ? `--${names[0]}` : `--${names[0]} ${text}`;
    },
  };
}

const WHOLE_NUMBER = /^\d+$/;
const DECIMAL_NUMBER = /^(\d+(\.\d+)?|\.\d+)$/;
const VERSION = /^\d+(\.\d+)?$/;
const RATIO = /^(\d+):(\d+)$/;

function wholeNumber(min: number, max: number): ValueKind<number> {
  return {
    takes: "required",
    rule: `must be a whole number from ${min} to ${max}`,
    read: (text) => (WHOLE_NUMBER.test(text) ? within(Number(text), min, max) : undefined),
    write: String,
  };
}

function decimal(min: number, max: number): ValueKind<number> {
  return {
    takes: "required",
    rule: `must be a number from ${min} to ${max}`,
    read: (text) => (DECIMAL_NUMBER.test(text) ? within(Number(text), min, max) : undefined),
    write: String,
  };
}

function within(value: number, min: number, max: number): number | undefined {
  return value >= min && value <= max ? value : undefined;
}

/** "W:H", stored in lowest terms so that `--ar 32:18` and `--ar 16:9` are the same request. */
const aspectRatio: ValueKind<string> = {
  takes: "required",
  rule: "must be W:H with two positive whole numbers, e.g. 16:9",
  read(text) {
    const match = RATIO.exec(text);
    const width = Number(match?.[1]);
    const height = Number(match?.[2]);
    if (!(Number.isSafeInteger(width) && Number.isSafeInteger(height) && width > 0 && height > 0)) {
      return undefined;
    }
    const divisor = greatestCommonDivisor(width, height);
    return `${width / divisor}:${height / divisor}`;
  },
  write: (ratio) => ratio,
};

function greatestCommonDivisor(a: number, b: number): number {
  return b === 0 ? a : greatestCommonDivisor(b, a % b);
}

const commaList: ValueKind<string[]> = {
  takes: "required",
  rule: "must list one or more things separated by commas",
  read: (text) => {
    const items = splitCommaList(text);
    return items.length > 0 ? items : undefined;
  },
  write: (items) => items.map(asPlainWords).join(", "),
};

const httpUrl: ValueKind<string> = {
  takes: "required",
  rule: "must be an http or https URL",
  read: (text) => (isHttpUrl(text) ? text : undefined),
  write: (url) => url,
};

function isHttpUrl(text: string): boolean {
  if (/\s/.test(text)) return false;
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

const version: ValueKind<string> = {
  takes: "required",
  rule: "must be a version number such as 6, 6.1 or 7",
  read: (text) => (VERSION.test(text) ? text : undefined),
  write: (value) => value,
};

/** `--niji` alone means the current Niji model; `--niji 6` a given one. */
const optionalVersion: ValueKind<string | true> = {
  takes: "optional",
  rule: "takes no value or a version number such as 6",
  read: (text) => (text === "" ? true : VERSION.test(text) ? text : undefined),
  write: (value) => (value === true ? "" : value),
};

function oneOf<T extends string | number>(values: readonly [T, ...T[]]): ValueKind<T> {
  const last = values[values.length - 1];
  const listed = values.length > 1 ? `${values.slice(0, -1).join(", ")} or ${last}` : String(last);
  return {
    takes: "required",
    rule: `must be ${listed}`,
    read: (text) => values.find((value) => String(value) === text),
    write: String,
  };
}

/** A flag whose only accepted value is one word, e.g. `--style raw`. */
function onlyWord(word: string): ValueKind<true> {
  return {
    takes: "required",
    rule: `only ${word} is accepted`,
    read: (text) => (text === word ? true : undefined),
    write: () => word,
  };
}

const valueless: ValueKind<true> = {
  takes: "none",
  rule: "takes no value",
  read: (text) => (text === "" ? true : undefined),
  write: () => "",
};

let commandFlags: readonly CommandFlag[] | undefined;

/**
 * Every flag an advanced-mode prompt may carry, in the order the renderer writes them. Built on first use:
 * generations.schema.ts imports this module, so its constants are not yet there while this one loads.
 */
export function getCommandFlags(): readonly CommandFlag[] {
  commandFlags ??= [
    flag("aspectRatio", ["ar", "aspect"], aspectRatio),
    flag("chaos", ["chaos", "c"], wholeNumber(0, CHAOS_MAX)),
    flag("stylize", ["stylize", "s"], wholeNumber(0, STYLIZE_MAX)),
    flag("negative", ["no"], commaList),
    flag("seed", ["seed"], wholeNumber(0, 4_294_967_295)),
    flag("weird", ["weird", "w"], wholeNumber(0, 3000)),
    flag("quality", ["q", "quality"], oneOf([1, 2, 4] as const)),
    flag("experimental", ["exp"], wholeNumber(0, 100)),
    flag("imageWeight", ["iw"], decimal(0, 3)),
    flag("styleReference", ["sref"], httpUrl),
    flag("styleWeight", ["sw"], wholeNumber(0, 1000)),
    flag("version", ["v", "version"], version),
    flag("niji", ["niji"], optionalVersion),
    flag("tile", ["tile"], valueless),
    // `--style raw` first: it is the documented spelling, so the one the renderer writes.
    flag("raw", ["style"], onlyWord("raw")),
    flag("raw", ["raw"], valueless),
  ];
  return commandFlags;
}

function findFlag(name: string): CommandFlag | undefined {
  return getCommandFlags().find((candidate) => candidate.names.includes(name));
}

/**
 * A flag: `--name` or `—name` (phones turn `--` into an em-dash), at the start or after a space, the name
 * starting with a letter; so "well--known", "cat—dog" and a spaced dash " — " stay words.
 */
const FLAG_PATTERN = /(?<=^|\s)(?:--|—)([A-Za-z]\S*)/g;

interface FlagToken {
  /** As the prompt spells it, for messages: "--c", "—ar". */
  written: string;
  /** Lower-case, without dashes. */
  name: string;
  /** Everything up to the next flag, trimmed. */
  value: string;
}

function splitCommand(prompt: string): { description: string; tokens: FlagToken[] } {
  const matches = [...prompt.matchAll(FLAG_PATTERN)];
  const tokens = matches.map((match, position): FlagToken => {
    const end = matches[position + 1]?.index ?? prompt.length;
    return {
      written: match[0],
      name: (match[1] ?? "").toLowerCase(),
      value: prompt.slice(match.index + match[0].length, end).trim(),
    };
  });
  return { description: prompt.slice(0, matches[0]?.index ?? prompt.length).trim(), tokens };
}

/** Free text put into a command (camera, interdictions) must not turn into flags when parsed again. */
function asPlainWords(text: string): string {
  return text.replace(FLAG_PATTERN, "$1");
}

function splitCommaList(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

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
