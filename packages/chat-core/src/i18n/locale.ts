import { en, type Messages } from "./en.js";
import { fr } from "./fr.js";

/** The languages the bots speak; English when a person's is none of them. */
export const LOCALES = ["en", "fr"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

const CATALOGUES: Record<Locale, Messages> = { en, fr };

/**
 * The first of the given language tags the bots speak ("fr", "fr-FR", "en-US", Slack's "fr_FR"), else
 * English: a Discord user's locale then their server's, a Slack user's.
 */
export function localeOf(...tags: (string | null | undefined)[]): Locale {
  for (const tag of tags) {
    const language = tag?.split(/[-_]/)[0]?.toLowerCase();
    const known = LOCALES.find((locale) => locale === language);
    if (known) return known;
  }
  return DEFAULT_LOCALE;
}

/** The catalogue of a language: every sentence the bots say in it. */
export function messagesFor(locale: Locale = DEFAULT_LOCALE): Messages {
  return CATALOGUES[locale];
}
