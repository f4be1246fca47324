import { type GenerateOptions, type SimpleGenerateOptions, VALUE_OPTIONS } from "./generate-request.js";
import { type Locale, messagesFor } from "./i18n/locale.js";

/** The flags both bots accept in free text, each with whether it takes a value. */
const SWITCH_FLAGS = ["optimize", "fast"] as const;
const ADVANCED_FLAG = "--advanced";

export type FlagParseResult = { ok: true; options: GenerateOptions } | { ok: false; problems: string[] };

/**
 * Reads `/generate` free text: the description, then flags; quoted values may hold spaces. Text that
 * starts with `--advanced` is a raw third-party command, passed on untouched for the API to check. Problems
 * are told in the person's language.
 */
export function parseGenerateText(text: string, locale?: Locale): FlagParseResult {
  const { flags } = messagesFor(locale);
  const trimmed = text.trim();
  if (trimmed === ADVANCED_FLAG || trimmed.startsWith(`${ADVANCED_FLAG} `)) {
    const command = trimmed.slice(ADVANCED_FLAG.length).trim();
    if (command === "") return { ok: false, problems: [flags.advancedEmpty] };
    return { ok: true, options: { mode: "advanced", command } };
  }
  const problems: string[] = [];
  const words: string[] = [];
  const options: Omit<SimpleGenerateOptions, "prompt"> & { mode: "simple" } = { mode: "simple" };
  const tokens = tokenize(trimmed);
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] as Token;
    if (token.quoted || !token.text.startsWith("--")) {
      words.push(token.text);
      continue;
    }
    const flag = token.text.slice(2).toLowerCase();
    if (isOneOf(flag, SWITCH_FLAGS)) {
      options[flag] = true;
    } else if (isOneOf(flag, VALUE_OPTIONS)) {
      const value = tokens[index + 1];
      if (value === undefined || (!value.quoted && value.text.startsWith("--"))) {
        problems.push(flags.needsValue(flag));
        continue;
      }
      index += 1;
      if (options[flag] !== undefined) problems.push(flags.givenTwice(flag));
      options[flag] = value.text;
    } else {
      problems.push(
        flags.unknown(token.text, [...VALUE_OPTIONS, ...SWITCH_FLAGS].map((name) => `--${name}`).join(", ")),
      );
    }
  }
  const prompt = words.join(" ");
  if (prompt === "") problems.push(flags.noPrompt);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, options: { ...options, prompt } };
}

interface Token {
  text: string;
  quoted: boolean;
}

/** Splits on spaces, keeping "double-quoted" (or “curly-quoted”, as chat apps send them) values whole. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(/["“”]([^"“”]*)["“”]|(\S+)/g)) {
    tokens.push(
      match[1] === undefined ? { text: match[2] as string, quoted: false } : { text: match[1], quoted: true },
    );
  }
  return tokens;
}

function isOneOf<T extends string>(value: string, list: readonly T[]): value is T {
  return (list as readonly string[]).includes(value);
}
