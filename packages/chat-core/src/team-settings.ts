import type { StoreCollection } from "./bot-store.js";
import { type Locale, messagesFor } from "./i18n/locale.js";

/**
 * What a team's admins decide for it: who may buy besides the person who asked for the images and the
 * admins (a Discord role, a Slack user group), how many images the team buys a day at most, and how many
 * generations each person starts a day at most.
 */
export interface TeamSettings {
  /** A Discord role id or a Slack user group id; unset: the requester and the admins alone. */
  buyersGroupId?: string;
  /** Images bought per UTC day; unset: no cap. */
  dailyPurchaseCap?: number;
  /** Generations each person starts per UTC day (besides the cooldown); unset: no quota. */
  dailyGenerationsPerPerson?: number;
  updatedBy?: string;
  updatedAt?: string;
}

/** A change an admin asks for; `null` clears a setting. */
export interface TeamSettingsChange {
  buyersGroupId?: string | null;
  dailyPurchaseCap?: number | null;
  dailyGenerationsPerPerson?: number | null;
}

/** The largest daily cap an admin may set (imagehub's own buckets hold far fewer). */
export const DAILY_PURCHASE_CAP_MAX = 10_000;
/** The largest daily quota of generations per person an admin may set. */
export const DAILY_GENERATIONS_MAX = 1_000;

/** The teams' settings in the bot's store (PostgreSQL or the development JSON file). */
export class TeamSettingsStore {
  constructor(private readonly records: StoreCollection<TeamSettings>) {}

  async get(teamId: string): Promise<TeamSettings> {
    return (await this.records.get(teamId)) ?? {};
  }

  /** Applies an admin's change; answers the settings now in force. */
  async change(teamId: string, change: TeamSettingsChange, adminId: string): Promise<TeamSettings> {
    const written = await this.records.update(teamId, (current) => {
      const next: TeamSettings = { ...current, updatedBy: adminId, updatedAt: new Date().toISOString() };
      if (change.buyersGroupId === null) delete next.buyersGroupId;
      else if (change.buyersGroupId !== undefined) next.buyersGroupId = change.buyersGroupId;
      if (change.dailyPurchaseCap === null) delete next.dailyPurchaseCap;
      else if (change.dailyPurchaseCap !== undefined) next.dailyPurchaseCap = change.dailyPurchaseCap;
      if (change.dailyGenerationsPerPerson === null) delete next.dailyGenerationsPerPerson;
      else if (change.dailyGenerationsPerPerson !== undefined) {
        next.dailyGenerationsPerPerson = change.dailyGenerationsPerPerson;
      }
      return next;
    });
    return written ?? {};
  }
}

/**
 * The settings in one line each, in an admin's language, for their answer; `group` renders the group as its
 * platform does.
 */
export function describeSettings(
  settings: TeamSettings,
  group: (id: string) => string,
  locale?: Locale,
): string[] {
  const lines = messagesFor(locale).settings;
  return [
    lines.buyers(settings.buyersGroupId === undefined ? undefined : group(settings.buyersGroupId)),
    lines.purchaseCap(settings.dailyPurchaseCap),
    lines.generationsPerPerson(settings.dailyGenerationsPerPerson),
  ];
}
