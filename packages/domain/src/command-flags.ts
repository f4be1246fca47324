import type { AdvancedFlags, EngineRequest } from "./engine-request.js";
import { CHAOS_MAX, STYLIZE_DEFAULT, STYLIZE_MAX } from "./generation-params.js";

/**
 * The grammar of advanced-mode flags, one table (getCommandFlags()) that the parser, the validator and the
 * renderer of prompt-compiler.ts all read, and the tokens a command splits into.
 */

/** What the flags of a command set: the command-side fields of EngineRequest, the advanced ones flattened. */
export type CommandSettings = Partial<
  Pick<EngineRequest, "aspectRatio" | "chaos" | "stylize" | "negative" | "seed">
> &
  AdvancedFlags;
export type SettingName = keyof CommandSettings;
type SettingValue<K extends SettingName> = NonNullable<CommandSettings[K]>;

/** The values an EngineRequest has when neither a flag nor a simple-mode param sets them. */
export const COMMAND_DEFAULTS = {
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

/** Every flag an advanced-mode prompt may carry, in the order the renderer writes them. */
const COMMAND_FLAGS: readonly CommandFlag[] = [
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

export function getCommandFlags(): readonly CommandFlag[] {
  return COMMAND_FLAGS;
}

export function findFlag(name: string): CommandFlag | undefined {
  return getCommandFlags().find((candidate) => candidate.names.includes(name));
}

/**
 * A flag: `--name` or `—name` (phones turn `--` into an em-dash), at the start or after a space, the name
 * starting with a letter; so "well--known", "cat—dog" and a spaced dash " — " stay words.
 */
export const FLAG_PATTERN = /(?<=^|\s)(?:--|—)([A-Za-z]\S*)/g;

interface FlagToken {
  /** As the prompt spells it, for messages: "--c", "—ar". */
  written: string;
  /** Lower-case, without dashes. */
  name: string;
  /** Everything up to the next flag, trimmed. */
  value: string;
}

export function splitCommand(prompt: string): { description: string; tokens: FlagToken[] } {
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
export function asPlainWords(text: string): string {
  return text.replace(FLAG_PATTERN, "$1");
}

export function splitCommaList(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}
