import { backoffMs, type ImageGeneration } from "@imagehub/domain";
import type { Logger } from "./bot-logger.js";
import type { StoreCollection } from "./bot-store.js";
import type { ChatTarget } from "./chat-target.js";
import { FINAL_RANK, progressRank } from "./generation-view.js";

/**
 * The platform will never show this message again (deleted, its channel hidden from the bot, the bot
 * removed): its updates end, and the delivery that brought them still succeeds.
 */
export class MessageGoneError extends Error {}

/** What the bot knows of one status message, kept across restarts and shared by replicas. */
export interface StatusMessageRecord {
  generationId: string;
  target: ChatTarget;
  /** progressRank of the step the message shows; -1 before its first update. */
  shownRank: number;
  /** Why its updates ended (MessageGoneError), if they did. */
  endedBecause?: string;
  /** When the bot first recorded it (ms); absent on records kept from before it was written down. */
  recordedAt?: number;
  /** When it showed its generation's end, or its updates ended (ms): the retention counts from then. */
  endedAt?: number;
}

/** A completion notice claimed for a generation: it is posted once, whichever replica shows the end. */
export interface CompletionNoticeRecord {
  generationId: string;
  claimedAt: string;
}

/** The latest state of a message not shown yet: a newer state replaces it, an older one never does. */
export interface PendingUpdateRecord {
  generationId: string;
  target: ChatTarget;
  generation: ImageGeneration;
  rank: number;
  receivedAt: number;
  /** Not before this time (ms): the wait after a failed try. */
  notBefore: number;
  attempts: number;
  /** A replica is applying it until then (ms); another takes it over after. */
  leasedUntil: number;
}

export interface StatusUpdatesOptions {
  messages: StoreCollection<StatusMessageRecord>;
  pending: StoreCollection<PendingUpdateRecord>;
  /** Shows a generation's state in its message on the platform; throws MessageGoneError when it never can. */
  apply: (target: ChatTarget, generation: ImageGeneration) => Promise<void>;
  /**
   * Once the message shows the end: a new message that mentions the requester (edits notify nobody). Once
   * per generation; a failure other than MessageGoneError has the end shown and announced again later.
   */
  announce?: {
    notices: StoreCollection<CompletionNoticeRecord>;
    post: (target: ChatTarget, generation: ImageGeneration) => Promise<void>;
  };
  /** Every ended generation (Done or failed) offered, whatever its message shows: its team's place is free. */
  onEnded?: (target: ChatTarget, generation: ImageGeneration) => Promise<void>;
  logger: Logger;
  /** How often pending updates are looked for when nothing woke the queue (other replicas' leftovers). */
  pollIntervalMs?: number;
  /**
   * How long a message's record is kept once its generation ended (or, for one that never ends, once it was
   * recorded); deliveries of a generation created longer ago than this find no record and are dropped.
   */
  retentionMs: number;
  /** The clock the retention is counted on (ms). */
  now?: () => number;
}

/** A lease outlives the longest rate-limit wait the platforms' clients sit out in one call. */
const LEASE_MS = 120_000;
const MAX_ATTEMPTS = 8;
/** A failed update waits about 1 s, then doubling up to about a minute (the 7th wait, before the last try). */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 64_000;
const DEFAULT_POLL_MS = 2_000;
const PRUNE_INTERVAL_MS = 3_600_000;

/**
 * The bot's own queue between imagehub's deliveries and the platforms. A delivery is answered as soon as its
 * state is recorded (`offer`); the queue then applies the states to the messages: one message at a time per
 * channel, so that the platforms' per-channel budgets are spent on the latest states only (a state that
 * arrives while its channel is busy replaces the one waiting, and a message never goes back to an earlier
 * step). The platforms' clients sit out rate limits (429 and its retry_after / Retry-After) themselves.
 * Refusals that will not heal end that message's updates; other failures are tried again later.
 */
export class StatusUpdates {
  private readonly channelsBusy = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private draining: Promise<void> | undefined;
  private isDrainAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private isStopped = false;
  /** Edits sent to the platform, per generation (bench:chat-bots reports them). */
  readonly editsSent = new Map<string, number>();

  private readonly now: () => number;

  constructor(private readonly options: StatusUpdatesOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Records a generation's state for its message when it is ahead of what the message shows or will show,
   * and wakes the queue. Answers once the state is durable.
   */
  async offer(target: ChatTarget, generation: ImageGeneration): Promise<void> {
    const rank = progressRank(generation);
    if (rank === FINAL_RANK) await this.options.onEnded?.(target, generation);
    // A generation past the retention whose record is gone was shown to its end long ago (pruned): a late
    // delivery must not start its message over.
    const isPruned = Date.parse(generation.createdAt) < this.now() - this.options.retentionMs;
    const message = await this.options.messages.update(generation.id, (current) =>
      current || isPruned ? undefined : this.newRecord(target, generation.id, -1),
    );
    const known = message ?? (await this.options.messages.get(generation.id));
    if (!known || known.endedBecause !== undefined || rank <= known.shownRank) return;
    if (!isSameMessage(known.target, target)) {
      this.options.logger.warn(
        { generationId: generation.id, recorded: known.target, claimed: target },
        "refused a state naming another message than the generation's recorded one",
      );
      return;
    }
    const now = Date.now();
    await this.options.pending.update(generation.id, (current) =>
      current && current.rank >= rank
        ? undefined
        : {
            generationId: generation.id,
            target: known.target,
            generation,
            rank,
            receivedAt: current?.receivedAt ?? now,
            notBefore: now,
            attempts: 0,
            leasedUntil: current?.leasedUntil ?? 0,
          },
    );
    this.wake();
  }

  /** Records a message the bot just posted for a generation, showing its first step (Queued). */
  async track(target: ChatTarget, generation: ImageGeneration): Promise<void> {
    await this.options.messages.update(generation.id, (current) =>
      current ? undefined : this.newRecord(target, generation.id, progressRank(generation)),
    );
  }

  /**
   * A retried generation starts again from Pending: its message follows it from scratch, recorded anew
   * when its record was pruned.
   */
  async restart(target: ChatTarget, generationId: string): Promise<void> {
    await this.options.pending.delete(generationId);
    await this.options.announce?.notices.delete(generationId);
    await this.options.messages.set(generationId, this.newRecord(target, generationId, -1));
  }

  /** The messages whose generation has not reached its end in the chat, for reconciling at start. */
  async inProgress(): Promise<StatusMessageRecord[]> {
    const messages = await this.options.messages.values();
    return messages.filter((message) => message.endedBecause === undefined && message.shownRank < FINAL_RANK);
  }

  /**
   * Forgets the messages whose generation ended longer than the retention ago, and those recorded longer
   * ago that never ended (their generation was deleted, or its end never came): their buttons read what
   * they need from imagehub. Records kept from before `recordedAt` existed are dated now, pruned later.
   */
  async prune(): Promise<number> {
    const now = this.now();
    const { messages, announce } = this.options;
    const isExpired = (message: StatusMessageRecord) =>
      message.recordedAt !== undefined &&
      (message.endedAt ?? message.recordedAt) < now - this.options.retentionMs;
    let pruned = 0;
    for (const message of await messages.values()) {
      if (message.recordedAt === undefined) {
        await messages.update(message.generationId, (current) =>
          current && current.recordedAt === undefined ? { ...current, recordedAt: now } : undefined,
        );
      } else if (isExpired(message)) {
        await messages.deleteIf(message.generationId, isExpired);
        await announce?.notices.delete(message.generationId);
        pruned += 1;
      }
    }
    return pruned;
  }

  /** Starts looking for pending updates now and every poll interval, and pruning now and every hour. */
  start(): void {
    this.isStopped = false;
    this.wake();
    const prune = () =>
      this.prune()
        .then((pruned) => {
          if (pruned > 0)
            this.options.logger.info({ pruned }, "forgot the status messages past the retention");
        })
        .catch((error: unknown) => this.options.logger.warn({ err: error }, "status messages not pruned"));
    void prune();
    clearInterval(this.pruneTimer);
    this.pruneTimer = setInterval(prune, PRUNE_INTERVAL_MS);
    this.pruneTimer.unref();
  }

  /** Stops taking updates and waits for the ones being applied. */
  async stop(): Promise<void> {
    this.isStopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pruneTimer);
    await this.draining;
    await Promise.allSettled([...this.running]);
  }

  /** Resolves once nothing is pending nor being applied (tests, and the bench, wait on it). */
  async settled(): Promise<void> {
    for (;;) {
      await this.draining;
      await Promise.allSettled([...this.running]);
      if (this.running.size === 0 && (await this.options.pending.values()).length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private wake(): void {
    if (this.isStopped) return;
    if (this.draining) {
      this.isDrainAgain = true;
      return;
    }
    this.draining = this.drain()
      .catch((error: unknown) => this.options.logger.error({ err: error }, "status updates: drain failed"))
      .finally(() => {
        this.draining = undefined;
        if (this.isDrainAgain) {
          this.isDrainAgain = false;
          this.wake();
        } else if (!this.isStopped) {
          clearTimeout(this.timer);
          this.timer = setTimeout(() => this.wake(), this.options.pollIntervalMs ?? DEFAULT_POLL_MS);
          this.timer.unref();
        }
      });
  }

  /** Starts one update per idle channel, oldest first. */
  private async drain(): Promise<void> {
    const now = Date.now();
    const waiting = (await this.options.pending.values())
      .filter((update) => update.notBefore <= now && update.leasedUntil <= now)
      .sort((a, b) => a.receivedAt - b.receivedAt);
    for (const candidate of waiting) {
      const channel = channelOf(candidate.target);
      if (this.isStopped || this.channelsBusy.has(channel)) continue;
      const claimed = await this.options.pending.update(candidate.generationId, (current) =>
        current && current.leasedUntil <= now && current.notBefore <= now
          ? { ...current, leasedUntil: now + LEASE_MS }
          : undefined,
      );
      if (!claimed) continue;
      this.channelsBusy.add(channel);
      const run = this.applyOne(claimed).finally(() => {
        this.channelsBusy.delete(channel);
        this.running.delete(run);
        this.wake();
      });
      this.running.add(run);
    }
  }

  private async applyOne(update: PendingUpdateRecord): Promise<void> {
    const { generationId } = update;
    try {
      this.editsSent.set(generationId, (this.editsSent.get(generationId) ?? 0) + 1);
      await this.options.apply(update.target, update.generation);
      if (update.rank === FINAL_RANK) await this.announceOnce(update);
      await this.options.messages.update(generationId, (current) =>
        current && current.shownRank < update.rank
          ? { ...current, shownRank: update.rank, ...(update.rank === FINAL_RANK && { endedAt: this.now() }) }
          : undefined,
      );
      await this.options.pending.deleteIf(generationId, (current) => current.rank <= update.rank);
    } catch (error) {
      if (error instanceof MessageGoneError) return this.end(update, error.message);
      await this.tryLater(update, error);
    } finally {
      // Still pending (a newer state came meanwhile): free it for the next turn at once.
      await this.options.pending
        .update(generationId, (current) =>
          current && current.leasedUntil > Date.now() && current.rank > update.rank
            ? { ...current, leasedUntil: 0 }
            : undefined,
        )
        .catch(() => {});
    }
  }

  private newRecord(target: ChatTarget, generationId: string, shownRank: number): StatusMessageRecord {
    return { generationId, target, shownRank, recordedAt: this.now() };
  }

  private async announceOnce({ generationId, target, generation }: PendingUpdateRecord): Promise<void> {
    const { announce } = this.options;
    if (!announce) return;
    const claimed = await announce.notices.update(generationId, (current) =>
      current ? undefined : { generationId, claimedAt: new Date().toISOString() },
    );
    if (!claimed) return;
    try {
      await announce.post(target, generation);
    } catch (error) {
      if (error instanceof MessageGoneError) {
        this.options.logger.warn({ generationId, reason: error.message }, "completion notice refused");
        return;
      }
      await announce.notices.delete(generationId);
      throw error;
    }
  }

  private async end(update: PendingUpdateRecord, reason: string): Promise<void> {
    this.options.logger.warn(
      { generationId: update.generationId, target: update.target, reason },
      "status message gone: its updates end",
    );
    await this.options.messages.update(update.generationId, (current) =>
      current ? { ...current, endedBecause: reason, endedAt: this.now() } : undefined,
    );
    await this.options.pending.delete(update.generationId);
  }

  private async tryLater(update: PendingUpdateRecord, error: unknown): Promise<void> {
    const attempts = update.attempts + 1;
    if (attempts >= MAX_ATTEMPTS) return this.end(update, `failed ${attempts} times: ${String(error)}`);
    this.options.logger.warn(
      { err: error, generationId: update.generationId, attempts },
      "status message not updated; trying again later",
    );
    await this.options.pending.update(update.generationId, (current) =>
      current
        ? {
            ...current,
            attempts,
            leasedUntil: 0,
            notBefore: Date.now() + backoffMs(attempts, RETRY_FIRST_MS, RETRY_MAX_MS),
          }
        : undefined,
    );
  }
}

function channelOf(target: ChatTarget): string {
  return `${target.teamId}/${target.channelId}`;
}

function isSameMessage(a: ChatTarget, b: ChatTarget): boolean {
  return a.teamId === b.teamId && a.channelId === b.channelId && a.messageId === b.messageId;
}
