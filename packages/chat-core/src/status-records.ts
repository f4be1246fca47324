import type { ImageGeneration } from "@imagehub/domain";
import type { Logger } from "./bot-logger.js";
import type { StoreCollection } from "./bot-store.js";
import type { ChatTarget } from "./chat-target.js";
import type { LeaseRecord } from "./leases.js";
import { MESSAGE_FORMS, type MessageForm } from "./status-refusals.js";

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

/** The form an update is to be shown in. */
export function formOf(update: PendingUpdateRecord): MessageForm {
  return MESSAGE_FORMS[Math.min(update.formIndex ?? 0, MESSAGE_FORMS.length - 1)] as MessageForm;
}

/** The lease key of a channel: one update at a time per channel, across replicas. */
export function channelOf(target: ChatTarget): string {
  return `channel:${target.platform}/${target.teamId}/${target.channelId}`;
}

/** A message, whichever generation claims it. */
export function messageKeyOf(target: ChatTarget): string {
  return `${target.platform}/${target.teamId}/${target.channelId}/${target.messageId}`;
}

export function isSameMessage(a: ChatTarget, b: ChatTarget): boolean {
  return a.teamId === b.teamId && a.channelId === b.channelId && a.messageId === b.messageId;
}
