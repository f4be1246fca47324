import { randomUUID } from "node:crypto";
import type { ImagehubClient } from "@imagehub/client";
import { GenerationStatus, MAX_PAGE_SIZE } from "@imagehub/domain";
import type { StoreCollection } from "./bot-store.js";
import type { Messages } from "./i18n/en.js";
import { type Locale, messagesFor } from "./i18n/locale.js";

export interface UsageLimitsOptions {
  /** A person waits this long between two generations they start. */
  userCooldownSeconds: number;
  /** At most this many of a team's generations are queued or running at once. */
  maxRunningPerTeam: number;
}

/** One of a team's places for a running generation, taken before the generation is created. */
interface RunningSlot {
  userId: string;
  /** Set once imagehub created (or retried) the generation. */
  generationId?: string;
  /** When generationId was set (ms): imagehub's lists from before may not show it yet. */
  confirmedAt?: number;
  reservedAt: number;
  /** The person's start before this one: a reservation that starts nothing gives their cooldown back. */
  previousStart?: number;
  /** The UTC day it counts against the person's daily quota: a reservation that starts nothing gives it back. */
  day?: string;
}

/** A team's use of its limits, changed one step at a time (the store's `update`), shared by replicas. */
export interface TeamUsageRecord {
  teamId: string;
  running: Record<string, RunningSlot>;
  /** When each person last started a generation (ms). */
  lastStarts: Record<string, number>;
  /** The images bought on one UTC day, counted against the team's daily cap. */
  purchases: { day: string; imageIds: string[] };
  /** The generations each person started on one UTC day, counted against the daily quota per person. */
  starts?: { day: string; byUser: Record<string, number> };
}

/** A person's use of the team's limits, as `/imagehub usage` tells it. */
export interface PersonUsage {
  /** Generations they started today (UTC). */
  startedToday: number;
  /** The team's daily quota per person; undefined: none. */
  dailyQuota: number | undefined;
  /** Seconds until their cooldown lets them start another (0: now). */
  cooldownLeftSeconds: number;
  cooldownSeconds: number;
  teamRunning: number;
  maxRunningPerTeam: number;
}

export type Reservation = { kind: "reserved"; reservationId: string } | { kind: "refused"; reason: string };

const RUNNING_STATUSES = [GenerationStatus.Create, GenerationStatus.Pending, GenerationStatus.Processing];
/** A reservation whose generation was never recorded is dropped after this (its replica died mid-start). */
const UNCONFIRMED_MS = 120_000;

/**
 * Protects a team's credits from a runaway channel: a cooldown and a daily quota per person, a limit of
 * running generations per team, a daily cap of purchases. Each check takes what it grants in the same step (a reservation),
 * so that twenty commands at the same instant cannot all pass a limit of three, on one replica or several.
 * A running place is given back when its generation ends (its last event, or the reconciliation at start)
 * or fails to start; places whose generation imagehub no longer runs are taken back when the team is full.
 */
export class TeamUsage {
  constructor(
    private readonly records: StoreCollection<TeamUsageRecord>,
    private readonly limits: UsageLimitsOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Takes a running place for a person's generation, or says why not (cooldown, daily quota, team limit) in
   * their language.
   * When the team is full, `stillRunning` (imagehub's answer) lets places whose generation ended unheard be
   * taken back.
   */
  async reserve(
    {
      teamId,
      userId,
      dailyQuota,
      locale,
    }: { teamId: string; userId: string; dailyQuota?: number | undefined; locale?: Locale },
    stillRunningIds: () => Promise<Set<string>>,
  ): Promise<Reservation> {
    const messages = messagesFor(locale);
    const first = await this.tryReserve(teamId, userId, dailyQuota, messages);
    if (first.kind === "reserved" || first.isPersonal) return first;
    const askedAt = this.now();
    const stillRunning = await stillRunningIds();
    await this.records.update(teamId, (current) => {
      if (!current) return undefined;
      const now = this.now();
      const running = Object.fromEntries(
        Object.entries(current.running).filter(([, slot]) =>
          slot.generationId === undefined || slot.confirmedAt === undefined
            ? now - slot.reservedAt < UNCONFIRMED_MS
            : // Confirmed after imagehub was asked: its answer may not list it yet.
              slot.confirmedAt >= askedAt || stillRunning.has(slot.generationId),
        ),
      );
      return Object.keys(running).length === Object.keys(current.running).length
        ? undefined
        : { ...current, running };
    });
    const second = await this.tryReserve(teamId, userId, dailyQuota, messages);
    return second.kind === "reserved" ? second : { kind: "refused", reason: second.reason };
  }

  /** Records the generation a reservation started: its place is given back when it ends. */
  async confirm(teamId: string, reservationId: string, generationId: string): Promise<void> {
    await this.records.update(teamId, (current) => {
      const slot = current?.running[reservationId];
      if (!current || !slot) return undefined;
      const confirmed = { ...slot, generationId, confirmedAt: this.now() };
      return { ...current, running: { ...current.running, [reservationId]: confirmed } };
    });
  }

  /** A reservation that started nothing: its place, the person's cooldown and quota are given back. */
  async cancel(teamId: string, reservationId: string): Promise<void> {
    await this.records.update(teamId, (current) => {
      const slot = current?.running[reservationId];
      if (!current || !slot) return undefined;
      const { [reservationId]: _cancelled, ...running } = current.running;
      const lastStarts = { ...current.lastStarts };
      if (slot.previousStart === undefined) delete lastStarts[slot.userId];
      else lastStarts[slot.userId] = slot.previousStart;
      const starts = current.starts;
      if (!starts || starts.day !== slot.day) return { ...current, running, lastStarts };
      const count = Math.max(0, (starts.byUser[slot.userId] ?? 0) - 1);
      return {
        ...current,
        running,
        lastStarts,
        starts: { ...starts, byUser: { ...starts.byUser, [slot.userId]: count } },
      };
    });
  }

  /** What a person has used of the team's limits now. */
  async personUsage(teamId: string, userId: string, dailyQuota: number | undefined): Promise<PersonUsage> {
    const record = await this.records.get(teamId);
    const now = this.now();
    const { userCooldownSeconds, maxRunningPerTeam } = this.limits;
    const last = record?.lastStarts[userId];
    const waitMs = last === undefined ? 0 : last + userCooldownSeconds * 1000 - now;
    return {
      startedToday: record?.starts?.day === dayOf(now) ? (record.starts.byUser[userId] ?? 0) : 0,
      dailyQuota,
      cooldownLeftSeconds: Math.max(0, Math.ceil(waitMs / 1000)),
      cooldownSeconds: userCooldownSeconds,
      teamRunning: Object.keys(record?.running ?? {}).length,
      maxRunningPerTeam,
    };
  }

  /** A generation ended (Done or failed): its place is free. Harmless for generations holding none. */
  async ended(teamId: string, generationId: string): Promise<void> {
    await this.records.update(teamId, (current) => {
      if (!current) return undefined;
      const running = Object.fromEntries(
        Object.entries(current.running).filter(([, slot]) => slot.generationId !== generationId),
      );
      return Object.keys(running).length === Object.keys(current.running).length
        ? undefined
        : { ...current, running };
    });
  }

  /** The generations the team holds a place for (tests and the status command read it). */
  async runningCount(teamId: string): Promise<number> {
    return Object.keys((await this.records.get(teamId))?.running ?? {}).length;
  }

  /**
   * Counts a purchase against the team's daily cap, or says why not in the buyer's language. An image bought already today counts
   * once: a second click is answered with the same links at no cost.
   */
  async reservePurchase(
    teamId: string,
    imageId: string,
    dailyCap: number | undefined,
    locale?: Locale,
  ): Promise<string | undefined> {
    const day = dayOf(this.now());
    let refusal: string | undefined;
    await this.records.update(teamId, (stored) => {
      const current = stored ?? this.empty(teamId);
      const today = current.purchases.day === day ? current.purchases.imageIds : [];
      if (today.includes(imageId)) return undefined;
      if (dailyCap !== undefined && today.length >= dailyCap) {
        refusal = messagesFor(locale).limits.purchaseCap(dailyCap);
        return undefined;
      }
      return { ...current, purchases: { day, imageIds: [...today, imageId] } };
    });
    return refusal;
  }

  /** A purchase that did not happen (imagehub refused it) does not count. */
  async cancelPurchase(teamId: string, imageId: string): Promise<void> {
    await this.records.update(teamId, (current) => {
      if (!current?.purchases.imageIds.includes(imageId)) return undefined;
      const imageIds = current.purchases.imageIds.filter((id) => id !== imageId);
      return { ...current, purchases: { ...current.purchases, imageIds } };
    });
  }

  /**
   * One step of `reserve`. A refusal `isPersonal` (the person's cooldown or quota) is one that freeing the
   * team's places would not change.
   */
  private async tryReserve(
    teamId: string,
    userId: string,
    dailyQuota: number | undefined,
    { limits }: Messages,
  ): Promise<
    { kind: "reserved"; reservationId: string } | { kind: "refused"; reason: string; isPersonal: boolean }
  > {
    const { userCooldownSeconds, maxRunningPerTeam } = this.limits;
    const reservationId = randomUUID();
    let refusal: { reason: string; isPersonal: boolean } | undefined;
    await this.records.update(teamId, (stored) => {
      // Read once the record is taken: a start that waited for it comes after the one that held it.
      const now = this.now();
      const current = stored ?? this.empty(teamId);
      const last = current.lastStarts[userId];
      const waitMs = last === undefined ? 0 : last + userCooldownSeconds * 1000 - now;
      if (waitMs > 0) {
        refusal = {
          isPersonal: true,
          reason: limits.cooldown(Math.ceil(waitMs / 1000), userCooldownSeconds),
        };
        return undefined;
      }
      const day = dayOf(now);
      const startedToday = current.starts?.day === day ? current.starts.byUser : {};
      const started = startedToday[userId] ?? 0;
      if (dailyQuota !== undefined && started >= dailyQuota) {
        refusal = {
          isPersonal: true,
          reason: limits.dailyQuota(dailyQuota),
        };
        return undefined;
      }
      const running = Object.keys(current.running).length;
      if (running >= maxRunningPerTeam) {
        refusal = {
          isPersonal: false,
          reason: limits.teamFull(running, maxRunningPerTeam),
        };
        return undefined;
      }
      const slot: RunningSlot = {
        userId,
        reservedAt: now,
        day,
        ...(last !== undefined && { previousStart: last }),
      };
      return {
        ...current,
        running: { ...current.running, [reservationId]: slot },
        lastStarts: { ...current.lastStarts, [userId]: now },
        starts: { day, byUser: { ...startedToday, [userId]: started + 1 } },
      };
    });
    return refusal ? { kind: "refused", ...refusal } : { kind: "reserved", reservationId };
  }

  private empty(teamId: string): TeamUsageRecord {
    return { teamId, running: {}, lastStarts: {}, purchases: { day: "", imageIds: [] } };
  }
}

/** A person's usage in one line each, in their language, for `/imagehub usage`. */
export function describeUsage(usage: PersonUsage, locale?: Locale): string[] {
  const { usage: lines } = messagesFor(locale);
  return [
    lines.startedToday(usage.startedToday, usage.dailyQuota),
    usage.cooldownSeconds === 0
      ? lines.noCooldown
      : lines.cooldown(usage.cooldownSeconds, usage.cooldownLeftSeconds),
    lines.teamRunning(usage.teamRunning, usage.maxRunningPerTeam),
  ];
}

/** The UTC day of a time (ms), as the daily limits count. */
function dayOf(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** The ids of a team's generations imagehub is running or has queued (found by the team's tag). */
export async function runningGenerationIds(client: ImagehubClient, tag: string): Promise<Set<string>> {
  const pages = await Promise.all(
    RUNNING_STATUSES.map((status) => client.generations.find({ tag, status, limit: MAX_PAGE_SIZE })),
  );
  return new Set(pages.flatMap((page) => page.prints.map((print) => print.id)));
}
