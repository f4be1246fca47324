import { setTimeout as delay } from "node:timers/promises";
import { DEFAULT_LOCALE, type Locale, localeOf } from "@imagehub/chat-core";
import type { webApi } from "@slack/bolt";

/** How long a person's language is remembered: users.info is Tier 4, and people rarely change theirs. */
const LOCALE_TTL_MS = 60 * 60_000;
/**
 * How long an answer waits for Slack to say a language: a rate-limited users.info waits out Retry-After, and
 * a modal's trigger expires after 3 s. The lookup goes on and serves the person's next request.
 */
const LOOKUP_WAIT_MS = 1_000;
/** Past this many people remembered, those whose language expired are forgotten. */
const REMEMBERED_MAX = 10_000;

/**
 * The language each Slack user reads (users.info with include_locale, as their Slack client is set), cached
 * per replica for an hour. When Slack does not say (a refusal), or not within a second (a rate limit), they
 * are answered in English.
 */
export class UserLocales {
  private readonly known = new Map<string, { locale: Locale; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async of(slack: webApi.WebClient, teamId: string, userId: string): Promise<Locale> {
    const remembered = this.remembered(teamId, userId);
    if (remembered !== undefined) return remembered;
    const waited = new AbortController();
    const locale = await Promise.race([
      this.lookUp(slack, teamId, userId),
      delay(LOOKUP_WAIT_MS, DEFAULT_LOCALE, { signal: waited.signal }).catch(() => DEFAULT_LOCALE),
    ]);
    waited.abort();
    return locale;
  }

  /** A person's language if it is remembered, without asking Slack (the error handler's answer). */
  remembered(teamId: string, userId: string): Locale | undefined {
    const entry = this.known.get(keyOf(teamId, userId));
    return entry && entry.until > this.now() ? entry.locale : undefined;
  }

  private async lookUp(slack: webApi.WebClient, teamId: string, userId: string): Promise<Locale> {
    try {
      const { user } = await slack.users.info({ user: userId, include_locale: true });
      const locale = localeOf(user?.locale);
      if (this.known.size >= REMEMBERED_MAX) this.forgetExpired();
      this.known.set(keyOf(teamId, userId), { locale, until: this.now() + LOCALE_TTL_MS });
      return locale;
    } catch {
      return DEFAULT_LOCALE;
    }
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [key, entry] of this.known) if (entry.until <= now) this.known.delete(key);
  }
}

function keyOf(teamId: string, userId: string): string {
  return `${teamId}/${userId}`;
}
