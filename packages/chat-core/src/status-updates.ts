import { randomUUID } from "node:crypto";
import { backoffMs, type ImageGeneration } from "@imagehub/domain";
import type { Logger } from "./bot-logger.js";
import type { StoreCollection } from "./bot-store.js";
import type { ChatTarget } from "./chat-target.js";
import { FINAL_RANK, progressRank } from "./generation-view.js";

/**
 * The platform says this message is gone for good (deleted, its channel removed or archived, the bot
 * removed): its updates end, the requester is told elsewhere, and the delivery that brought them succeeds.
 */
export class MessageGoneError extends Error {}

/**
 * The platform refused the form a message was shown in (an image it could not fetch, a file too large):
 * the next, plainer form is tried at once.
 */
export class FormRefusedError extends Error {}

/**
 * The platform refuses the bot a permission this message needs (a channel hidden from it, a right taken
 * away, a scope never granted): not gone, as someone may grant it. The message keeps its desired state and
 * is tried again until then; its requester is told once what is missing, in the platform's words.
 */
export class PermissionMissingError extends Error {
  constructor(
    /** The permission as whoever grants it knows it (e.g. "View Channel", "the `chat:write` scope"). */
    readonly missing: string,
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * How a finished generation's message shows its images, from the richest to the plainest: the grid as the
 * platform reads it best (a link it fetches itself, where it can), the grid uploaded by the bot, then text
 * with a link to each image. A form the platform keeps refusing gives way to the next.
 */
export const MESSAGE_FORMS = ["grid", "uploaded-grid", "links"] as const;
export type MessageForm = (typeof MESSAGE_FORMS)[number];

/** What the bot knows of one status message, kept across restarts and shared by replicas. */
export interface StatusMessageRecord {
  generationId: string;
  target: ChatTarget;
  /** progressRank of the step the message shows; -1 before its first update. */
  shownRank: number;
  /** Why its updates ended (MessageGoneError), if they did. */
  endedBecause?: string;
  /** Set once the requester was told the message is gone. */
  isRequesterTold?: boolean;
  /** Set once the requester was told the bot lacks a permission to update it. */
  isPermissionTold?: boolean;
  /** When the bot first recorded it (ms); absent on records kept from before it was written down. */
  recordedAt?: number;
  /** When it showed its generation's end, or its updates ended (ms): the retention counts from then. */
  endedAt?: number;
}

/** The one generation a message was posted for: no other generation may ever edit it. */
export interface MessageOwnerRecord {
  messageKey: string;
  generationId: string;
  recordedAt: number;
}

/** A completion notice claimed for a generation: it is posted once, whichever replica shows the end. */
export interface CompletionNoticeRecord {
  generationId: string;
  claimedAt: string;
}

/**
 * The desired state of a message not shown yet: a newer state replaces it, an older one never does. It
 * stays until the platform shows it, however long that takes, unless the platform says the message is gone.
 */
export interface PendingUpdateRecord {
  generationId: string;
  target: ChatTarget;
  generation: ImageGeneration;
  rank: number;
  receivedAt: number;
  /** Not before this time (ms): the wait after a failed try. */
  notBefore: number;
  attempts: number;
  /** The MESSAGE_FORMS index to try: it moves on when the platform refuses a form. */
  formIndex?: number;
  /** A replica is applying it until then (ms); another takes it over after. */
  leasedUntil: number;
}

/** A replica's hold on something only one replica may do at a time (a channel's turn, a reconcile round). */
export interface LeaseRecord {
  key: string;
  holder: string;
  until: number;
}

export interface StatusUpdatesOptions {
  messages: StoreCollection<StatusMessageRecord>;
  owners: StoreCollection<MessageOwnerRecord>;
  pending: StoreCollection<PendingUpdateRecord>;
  leases: StoreCollection<LeaseRecord>;
  /**
   * Shows a generation's state in its message on the platform, in the given form; throws MessageGoneError
   * when it never can, FormRefusedError when the platform refuses that form.
   */
  apply: (target: ChatTarget, generation: ImageGeneration, form: MessageForm) => Promise<void>;
  /** Reads a generation from imagehub with its team's key (the reconciler asks for the messages that lag). */
  fetchGeneration: (target: ChatTarget, generationId: string) => Promise<ImageGeneration>;
  /** Tells the requester, elsewhere (a direct message), that their message is gone and how their images end. */
  tellRequester?: (target: ChatTarget, generation: ImageGeneration, reason: string) => Promise<void>;
  /** Tells the requester, elsewhere, that the bot lacks `missing` to update their message, and who grants it. */
  tellPermissionMissing?: (target: ChatTarget, generation: ImageGeneration, missing: string) => Promise<void>;
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
  /** How often the messages that lag their generation are looked for (imagehub asked for each). */
  reconcileIntervalMs?: number;
  /**
   * How long a message's record is kept once its generation ended (or, for one that never ends, once it was
   * recorded); deliveries of a generation created longer ago than this find no record and are dropped.
   */
  retentionMs: number;
  /** The clock every wait, lease and retention is counted on (ms). */
  now?: () => number;
}

/** A lease outlives a platform call (each has a timeout); it is renewed while its holder still works. */
const LEASE_MS = 60_000;
const LEASE_RENEW_MS = LEASE_MS / 3;
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
 * The bot's own queue between imagehub's deliveries and the platforms. A delivery is answered as soon as its
 * state is recorded (`offer`); the queue then applies the states to the messages: one message at a time per
 * channel across every replica, so that the platforms' per-channel budgets are spent on the latest states
 * only (a state that arrives while its channel is busy replaces the one waiting, and a message never goes
 * back to an earlier step). A failed update is tried again after a back-off, without end; a form the platform
 * refuses gives way to a plainer one; a permission the bot lacks is told to the requester once and waited
 * for; a message is given up only when the platform says it is gone, and its requester is then told. The reconciler brings up to date every message that lags its generation (an event
 * imagehub could not deliver, an API that was down, a restart).
 */
export class StatusUpdates {
  private readonly running = new Set<Promise<void>>();
  private draining: Promise<void> | undefined;
  private isDrainAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private reconcileTimer: NodeJS.Timeout | undefined;
  private isStopped = false;
  /** Who this replica is, in the leases it holds. */
  private readonly holder = randomUUID();
  /** Edits sent to the platform, per generation (bench:chat-bots reports them). */
  readonly editsSent = new Map<string, number>();

  private readonly now: () => number;

  constructor(private readonly options: StatusUpdatesOptions) {
    this.now = options.now ?? Date.now;
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
    // A generation past the retention whose record is gone was shown to its end long ago (pruned): a late
    // delivery must not start its message over.
    const isPruned = Date.parse(generation.createdAt) < this.now() - this.options.retentionMs;
    const message = await this.options.messages.update(generation.id, (current) =>
      current || isPruned ? undefined : this.newRecord(target, generation.id, -1),
    );
    const known = message ?? (await this.options.messages.get(generation.id));
    if (!known || known.endedBecause !== undefined || rank <= known.shownRank) return;
    if (!isSameMessage(known.target, target)) {
      this.refused(generation.id, known.target, target);
      return;
    }
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
    if (!(await this.takeLease(RECONCILE_LEASE))) return;
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
      await this.releaseLease(RECONCILE_LEASE);
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
      if (!(await this.takeLease(channel))) continue;
      const claimed = await this.options.pending.update(candidate.generationId, (current) =>
        current && current.leasedUntil <= now && current.notBefore <= now
          ? { ...current, leasedUntil: now + LEASE_MS }
          : undefined,
      );
      if (!claimed) {
        await this.releaseLease(channel);
        continue;
      }
      const renewal = setInterval(() => void this.renew(channel, claimed.generationId), LEASE_RENEW_MS);
      renewal.unref();
      const run = this.applyOne(claimed).finally(async () => {
        clearInterval(renewal);
        await this.releaseLease(channel).catch(() => {});
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
      await this.options.apply(update.target, update.generation, formOf(update));
      if (update.rank === FINAL_RANK) await this.announceOnce(update);
      await this.options.messages.update(generationId, (current) =>
        current && current.shownRank < update.rank
          ? { ...current, shownRank: update.rank, ...(update.rank === FINAL_RANK && { endedAt: this.now() }) }
          : undefined,
      );
      await this.options.pending.deleteIf(generationId, (current) => current.rank <= update.rank);
    } catch (error) {
      if (error instanceof MessageGoneError) return this.end(update, error.message);
      if (error instanceof PermissionMissingError) await this.tellPermissionMissing(update, error.missing);
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
      if (error instanceof MessageGoneError) {
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
    const isFormRefused = error instanceof FormRefusedError && formIndex < MESSAGE_FORMS.length - 1;
    this.options.logger.warn(
      { err: error, generationId: update.generationId, attempts, form: formOf(update) },
      isFormRefused
        ? "status message form refused; trying a plainer one"
        : error instanceof PermissionMissingError
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

  /** Takes the lease of `key` when nobody holds it, this replica included (or the hold lapsed). */
  private async takeLease(key: string): Promise<boolean> {
    const now = this.now();
    const lease = await this.options.leases.update(key, (current) =>
      current && current.until > now ? undefined : { key, holder: this.holder, until: now + LEASE_MS },
    );
    return lease !== undefined;
  }

  private async releaseLease(key: string): Promise<void> {
    await this.options.leases.deleteIf(key, (current) => current.holder === this.holder);
  }

  /** Keeps this replica's hold on a channel and its update while the platform has not answered. */
  private async renew(channel: string, generationId: string): Promise<void> {
    const until = this.now() + LEASE_MS;
    await this.options.leases
      .update(channel, (current) => (current?.holder === this.holder ? { ...current, until } : undefined))
      .catch(() => {});
    await this.options.pending
      .update(generationId, (current) =>
        current && current.leasedUntil > 0 ? { ...current, leasedUntil: until } : undefined,
      )
      .catch(() => {});
  }
}

function formOf(update: PendingUpdateRecord): MessageForm {
  return MESSAGE_FORMS[Math.min(update.formIndex ?? 0, MESSAGE_FORMS.length - 1)] as MessageForm;
}

function channelOf(target: ChatTarget): string {
  return `channel:${target.platform}/${target.teamId}/${target.channelId}`;
}

function messageKeyOf(target: ChatTarget): string {
  return `${target.platform}/${target.teamId}/${target.channelId}/${target.messageId}`;
}

function isSameMessage(a: ChatTarget, b: ChatTarget): boolean {
  return a.teamId === b.teamId && a.channelId === b.channelId && a.messageId === b.messageId;
}
