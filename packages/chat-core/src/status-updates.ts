import { backoffMs, type ImageGeneration } from "@imagehub/domain";
import type { ChatTarget } from "./chat-target.js";
import { FINAL_RANK, progressRank } from "./generation-view.js";
import { LEASE_MS, LEASE_RENEW_MS, Leases } from "./leases.js";
import {
  channelOf,
  formOf,
  isSameMessage,
  messageKeyOf,
  type PendingUpdateRecord,
  type StatusMessageRecord,
  type StatusUpdatesOptions,
} from "./status-records.js";
import * as refusals from "./status-refusals.js";

/** A failed update waits about 1 s, then doubling up to about a minute, and is tried for as long as needed. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 64_000;
const DEFAULT_POLL_MS = 2_000;
const DEFAULT_RECONCILE_MS = 60_000;
/** A message not heard of for this long, and not pending, is looked up on imagehub. */
const QUIET_MS = 60_000;
const PRUNE_INTERVAL_MS = 3_600_000;
const RECONCILE_LEASE = "reconcile";

/**
 * The bot's own queue between imagehub's deliveries and the platforms. A delivery is answered once its state is
 * recorded (`offer`); the queue applies the states to the messages one at a time per channel across every
 * replica, so that the platforms' per-channel budgets go to the latest states only (a state arriving while its
 * channel is busy replaces the one waiting; a message never goes back a step). A failed update is tried again
 * after a back-off, without end; a refused form gives way to a plainer one; a missing permission is told to the
 * requester once and waited for; a message is given up only when the platform says it is gone, and its
 * requester told. The reconciler brings up to date every message that lags its generation (an event imagehub
 * could not deliver, an API that was down, a restart).
 */
export class StatusUpdates {
  private readonly running = new Set<Promise<void>>();
  private draining: Promise<void> | undefined;
  private isDrainAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private reconcileTimer: NodeJS.Timeout | undefined;
  private isStopped = false;
  /** This replica's holds on channels and on the reconcile round. */
  private readonly leases: Leases;
  /** Edits sent to the platform, per generation (bench:chat-bots reports them). */
  readonly editsSent = new Map<string, number>();

  private readonly now: () => number;

  constructor(private readonly options: StatusUpdatesOptions) {
    this.now = options.now ?? Date.now;
    this.leases = new Leases(options.leases, this.now);
  }

  /**
   * Records a generation's state for its message when it is ahead of what the message shows or will show,
   * and wakes the queue. Answers once the state is durable. A generation other than the one the message was
   * posted for is refused: a signed target copied onto another generation edits nothing.
   */
  async offer(target: ChatTarget, generation: ImageGeneration): Promise<void> {
    if (!(await this.isOwner(target, generation.id))) return;
    const rank = progressRank(generation);
    if (rank === FINAL_RANK) await this.options.onEnded?.(target, generation);
    // Past the retention, a missing record was pruned after its end: a late delivery must not start it over.
    const isPruned = Date.parse(generation.createdAt) < this.now() - this.options.retentionMs;
    const message = await this.options.messages.update(generation.id, (current) =>
      current || isPruned ? undefined : this.newRecord(target, generation.id, -1),
    );
    const known = message ?? (await this.options.messages.get(generation.id));
    if (!known || known.endedBecause !== undefined || rank <= known.shownRank) return;
    if (!isSameMessage(known.target, target)) return this.refused(generation.id, known.target, target);
    const now = this.now();
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
            formIndex: current?.formIndex ?? 0,
            leasedUntil: current?.leasedUntil ?? 0,
          },
    );
    this.wake();
  }

  /** Records a message the bot just posted for a generation, showing its first step (Queued). */
  async track(target: ChatTarget, generation: ImageGeneration): Promise<void> {
    if (!(await this.isOwner(target, generation.id))) return;
    await this.options.messages.update(generation.id, (current) =>
      current ? undefined : this.newRecord(target, generation.id, progressRank(generation)),
    );
  }

  /**
   * A retried generation starts again from Pending: its message follows it from scratch, recorded anew
   * when its record was pruned.
   */
  async restart(target: ChatTarget, generationId: string): Promise<void> {
    if (!(await this.isOwner(target, generationId))) return;
    await this.options.pending.delete(generationId);
    await this.options.announce?.notices.delete(generationId);
    await this.options.messages.set(generationId, this.newRecord(target, generationId, -1));
  }

  /** The messages whose generation has not reached its end in the chat. */
  async inProgress(): Promise<StatusMessageRecord[]> {
    const messages = await this.options.messages.values();
    return messages.filter((message) => message.endedBecause === undefined && message.shownRank < FINAL_RANK);
  }

  /**
   * Reads from imagehub the generation of every message that lags it with nothing pending (an event
   * imagehub gave up delivering, the bot or the API down at the time), and offers it. One replica at a time;
   * `quietMs` 0 looks at every message in progress (at start).
   */
  async reconcile(quietMs = QUIET_MS): Promise<void> {
    if (!(await this.leases.take(RECONCILE_LEASE))) return;
    try {
      const pendingIds = new Set((await this.options.pending.values()).map((update) => update.generationId));
      const lagging = (await this.inProgress()).filter(
        (message) =>
          !pendingIds.has(message.generationId) && (message.recordedAt ?? 0) <= this.now() - quietMs,
      );
      for (const message of lagging) {
        try {
          await this.offer(
            message.target,
            await this.options.fetchGeneration(message.target, message.generationId),
          );
        } catch (error) {
          this.options.logger.warn(
            { err: error, generationId: message.generationId },
            "could not reconcile a status message; the next round tries again",
          );
        }
      }
    } finally {
      await this.leases.release(RECONCILE_LEASE);
    }
  }

  /**
   * Forgets the messages whose generation ended longer than the retention ago, and those recorded longer
   * ago that never ended (their generation was deleted, or its end never came): their buttons read what
   * they need from imagehub. Records kept from before `recordedAt` existed are dated now, pruned later.
   */
  async prune(): Promise<number> {
    const now = this.now();
    const { messages, owners, announce } = this.options;
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
    for (const owner of await owners.values()) {
      if (owner.recordedAt < now - 2 * this.options.retentionMs) await owners.delete(owner.messageKey);
    }
    return pruned;
  }

  /**
   * Starts looking for pending updates now and every poll interval, for lagging messages every reconcile
   * interval (the first round after one interval), and pruning now and every hour.
   */
  start(): void {
    this.isStopped = false;
    this.wake();
    const every = (task: () => Promise<unknown>, what: string, ms: number, isNow: boolean) => {
      const run = () =>
        task().catch((error: unknown) =>
          this.options.logger.warn({ err: error }, `status messages: ${what}`),
        );
      if (isNow) void run();
      const timer = setInterval(run, ms);
      timer.unref();
      return timer;
    };
    clearInterval(this.pruneTimer);
    clearInterval(this.reconcileTimer);
    this.pruneTimer = every(
      async () => {
        const pruned = await this.prune();
        if (pruned > 0) this.options.logger.info({ pruned }, "forgot the status messages past the retention");
      },
      "not pruned",
      PRUNE_INTERVAL_MS,
      true,
    );
    this.reconcileTimer = every(
      () => this.reconcile(),
      "not reconciled",
      this.options.reconcileIntervalMs ?? DEFAULT_RECONCILE_MS,
      // The first round is the caller's (at start, over every message in progress).
      false,
    );
  }

  /** Stops taking updates and waits for the ones being applied. */
  async stop(): Promise<void> {
    this.isStopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pruneTimer);
    clearInterval(this.reconcileTimer);
    await this.draining;
    await Promise.allSettled([...this.running]);
  }

  /** Applies every update due now, and waits for them (tests on a clock of their own step it with this). */
  async flush(): Promise<void> {
    await this.draining;
    await Promise.allSettled([...this.running]);
    await this.drain();
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

  /** Starts one update per channel no replica is busy in, oldest first. */
  private async drain(): Promise<void> {
    const now = this.now();
    const waiting = (await this.options.pending.values())
      .filter((update) => update.notBefore <= now && update.leasedUntil <= now)
      .sort((a, b) => a.receivedAt - b.receivedAt);
    const taken = new Set<string>();
    for (const candidate of waiting) {
      const channel = channelOf(candidate.target);
      if (taken.has(channel)) continue;
      taken.add(channel);
      if (!(await this.leases.take(channel))) continue;
      const claimed = await this.options.pending.update(candidate.generationId, (current) =>
        current && current.leasedUntil <= now && current.notBefore <= now
          ? { ...current, leasedUntil: now + LEASE_MS }
          : undefined,
      );
      if (!claimed) {
        await this.leases.release(channel);
        continue;
      }
      const renewal = setInterval(() => void this.renew(channel, claimed.generationId), LEASE_RENEW_MS);
      renewal.unref();
      const run = this.applyOne(claimed).finally(async () => {
        clearInterval(renewal);
        await this.leases.release(channel).catch(() => {});
        this.running.delete(run);
        this.wake();
      });
      this.running.add(run);
    }
  }

  private async applyOne(update: PendingUpdateRecord): Promise<void> {
    const { generationId } = update;
    try {
      // A state recorded as the platform said the message is gone (its delivery had looked just before).
      if ((await this.options.messages.get(generationId))?.endedBecause !== undefined) {
        return await this.options.pending.delete(generationId);
      }
      this.editsSent.set(generationId, (this.editsSent.get(generationId) ?? 0) + 1);
      await this.options.apply(update.target, update.generation, formOf(update));
      if (update.rank === FINAL_RANK) await this.announceOnce(update);
      await this.options.messages.update(generationId, (current) =>
        current && current.shownRank < update.rank
          ? { ...current, shownRank: update.rank, ...(update.rank === FINAL_RANK && { endedAt: this.now() }) }
          : undefined,
      );
      await this.options.pending.deleteIf(generationId, (current) => current.rank <= update.rank);
    } catch (error) {
      if (error instanceof refusals.MessageGoneError) return this.end(update, error.message);
      if (error instanceof refusals.PermissionMissingError)
        await this.tellPermissionMissing(update, error.missing);
      await this.tryLater(update, error);
    } finally {
      // Still pending (a newer state came meanwhile): free it for the next turn at once.
      await this.options.pending
        .update(generationId, (current) =>
          current && current.leasedUntil > this.now() && current.rank > update.rank
            ? { ...current, leasedUntil: 0 }
            : undefined,
        )
        .catch(() => {});
    }
  }

  private newRecord(target: ChatTarget, generationId: string, shownRank: number): StatusMessageRecord {
    return { generationId, target, shownRank, recordedAt: this.now() };
  }

  /** Records the first generation a message serves; answers whether `generationId` is that one. */
  private async isOwner(target: ChatTarget, generationId: string): Promise<boolean> {
    const messageKey = messageKeyOf(target);
    await this.options.owners.update(messageKey, (current) =>
      current ? undefined : { messageKey, generationId, recordedAt: this.now() },
    );
    const owner = await this.options.owners.get(messageKey);
    if (owner?.generationId === generationId) return true;
    this.options.logger.warn(
      { generationId, messageOwner: owner?.generationId, claimed: target },
      "refused a generation that is not the one its message was posted for",
    );
    return false;
  }

  private refused(generationId: string, recorded: ChatTarget, claimed: ChatTarget): void {
    this.options.logger.warn(
      { generationId, recorded, claimed },
      "refused a state naming another message than the generation's recorded one",
    );
  }

  private async announceOnce({ generationId, target, generation }: PendingUpdateRecord): Promise<void> {
    const { announce } = this.options;
    if (!announce) return;
    const claimed = await announce.notices.update(generationId, (current) =>
      current ? undefined : { generationId, claimedAt: new Date(this.now()).toISOString() },
    );
    if (!claimed) return;
    try {
      await announce.post(target, generation);
    } catch (error) {
      if (error instanceof refusals.MessageGoneError) {
        this.options.logger.warn({ generationId, reason: error.message }, "completion notice refused");
        return;
      }
      await announce.notices.delete(generationId);
      throw error;
    }
  }

  /** The platform says the message is gone: its updates end, and its requester is told once, elsewhere. */
  private async end(update: PendingUpdateRecord, reason: string): Promise<void> {
    this.options.logger.warn(
      { generationId: update.generationId, target: update.target, reason },
      "status message gone: its updates end",
    );
    const ended = await this.options.messages.update(update.generationId, (current) =>
      current && !current.isRequesterTold
        ? { ...current, endedBecause: reason, endedAt: this.now(), isRequesterTold: true }
        : undefined,
    );
    await this.options.pending.delete(update.generationId);
    if (!ended || !this.options.tellRequester) return;
    await this.options
      .tellRequester(update.target, update.generation, reason)
      .catch((error: unknown) =>
        this.options.logger.warn(
          { err: error, generationId: update.generationId },
          "could not tell the requester their message is gone",
        ),
      );
  }

  /** The bot lacks a permission for the message: its requester is told once, and the update waits for it. */
  private async tellPermissionMissing(update: PendingUpdateRecord, missing: string): Promise<void> {
    const { tellPermissionMissing, messages, logger } = this.options;
    const marked = await messages.update(update.generationId, (current) =>
      current && !current.isPermissionTold ? { ...current, isPermissionTold: true } : undefined,
    );
    if (!marked || !tellPermissionMissing) return;
    await tellPermissionMissing(update.target, update.generation, missing).catch((error: unknown) =>
      logger.warn(
        { err: error, generationId: update.generationId, missing },
        "could not tell the requester of the permission the bot lacks",
      ),
    );
  }

  private async tryLater(update: PendingUpdateRecord, error: unknown): Promise<void> {
    const attempts = update.attempts + 1;
    const formIndex = update.formIndex ?? 0;
    const isFormRefused =
      error instanceof refusals.FormRefusedError && formIndex < refusals.MESSAGE_FORMS.length - 1;
    this.options.logger.warn(
      { err: error, generationId: update.generationId, attempts, form: formOf(update) },
      isFormRefused
        ? "status message form refused; trying a plainer one"
        : error instanceof refusals.PermissionMissingError
          ? "status message refused for a permission the bot lacks; trying again later"
          : "status message not updated; trying again later",
    );
    const wait = isFormRefused ? 0 : backoffMs(attempts, RETRY_FIRST_MS, RETRY_MAX_MS);
    await this.options.pending.update(update.generationId, (current) =>
      current
        ? {
            ...current,
            attempts,
            formIndex: isFormRefused ? formIndex + 1 : (current.formIndex ?? 0),
            leasedUntil: 0,
            notBefore: this.now() + wait,
          }
        : undefined,
    );
  }

  /** Keeps this replica's hold on a channel and its update while the platform has not answered. */
  private async renew(channel: string, generationId: string): Promise<void> {
    const until = await this.leases.renew(channel).catch(() => this.now() + LEASE_MS);
    await this.options.pending
      .update(generationId, (current) =>
        current && current.leasedUntil > 0 ? { ...current, leasedUntil: until } : undefined,
      )
      .catch(() => {});
  }
}
