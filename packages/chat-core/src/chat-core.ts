import { join } from "node:path";
import type { ImageGeneration } from "@imagehub/domain";
import type { Logger } from "./bot-logger.js";
import type { BotStore } from "./bot-store.js";
import type { ChatConfig } from "./chat-config.js";
import { ChatGenerations } from "./chat-generations.js";
import { ChatPurchases } from "./chat-purchases.js";
import type { ChatPlatform, ChatTarget } from "./chat-target.js";
import type { Locale } from "./i18n/locale.js";
import { JsonFileStore } from "./json-file-store.js";
import type { LeaseRecord } from "./leases.js";
import { type ClaimRecord, OnceClaims } from "./once-claims.js";
import { PostgresStore } from "./postgres-store.js";
import { SecretBox } from "./secret-box.js";
import type {
  CompletionNoticeRecord,
  MessageOwnerRecord,
  PendingUpdateRecord,
  StatusMessageRecord,
} from "./status-records.js";
import type { MessageForm } from "./status-refusals.js";
import { StatusUpdates } from "./status-updates.js";
import { type TeamConnectionRecord, TeamConnections } from "./team-connections.js";
import { type TeamSettings, TeamSettingsStore } from "./team-settings.js";
import { TeamUsage, type TeamUsageRecord } from "./team-usage.js";
import { WebhookReceiver } from "./webhook-receiver.js";

const DAY_MS = 24 * 3_600_000;

export interface ChatCore {
  store: BotStore;
  secretBox: SecretBox;
  connections: TeamConnections;
  generations: ChatGenerations;
  purchases: ChatPurchases;
  settings: TeamSettingsStore;
  usage: TeamUsage;
  updates: StatusUpdates;
  receiver: WebhookReceiver;
  /** What one replica alone handles (an interaction every gateway session receives). */
  claims: OnceClaims;
  /**
   * Once the bot can write to its platform: turns the teams' webhooks on again, subscribes the default key's,
   * and brings the messages still in progress up to date with their generations.
   */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What each bot does its own way on its platform. */
export interface ChatRendering {
  /**
   * Shows a generation's state in its status message, in a form (MessageGoneError when it never can,
   * FormRefusedError when the platform refuses that form).
   */
  showGeneration: (target: ChatTarget, generation: ImageGeneration, form: MessageForm) => Promise<void>;
  /** Posts the short new message that tells the requester their generation ended. */
  announceEnd: (target: ChatTarget, generation: ImageGeneration) => Promise<void>;
  /** Tells the requester by direct message that their status message is gone, and where their images are. */
  tellRequester: (target: ChatTarget, generation: ImageGeneration, reason: string) => Promise<void>;
  /** Tells the requester by direct message of the permission the bot lacks to update their status message. */
  tellPermissionMissing: (target: ChatTarget, generation: ImageGeneration, missing: string) => Promise<void>;
  /** A role or user group as a sentence of a language names it. */
  groupLabel: (groupId: string, locale: Locale) => string;
}

/** Everything a bot shares with the other, wired from its configuration, on its durable state. */
export async function openChatCore(
  platform: ChatPlatform,
  config: ChatConfig,
  rendering: ChatRendering,
  logger: Logger,
): Promise<ChatCore> {
  const store: BotStore = config.database
    ? await PostgresStore.open({ ...config.database, platform, logger })
    : await JsonFileStore.open(join(config.dataDir, `${platform}-bot.json`));
  const secretBox = new SecretBox(config.encryptionKey);
  const connections = new TeamConnections({
    platform,
    records: store.collection<TeamConnectionRecord>("teams"),
    secretBox,
    apiBaseUrl: config.apiBaseUrl,
    publicUrl: config.publicUrl,
    defaultApiKey: config.defaultApiKey,
    defaultKeyTeams: config.defaultKeyTeams,
  });
  const usage = new TeamUsage(store.collection<TeamUsageRecord>("teamUsage"), config.limits);
  const settings = new TeamSettingsStore(store.collection<TeamSettings>("teamSettings"));
  const updates = new StatusUpdates({
    messages: store.collection<StatusMessageRecord>("statusMessages"),
    owners: store.collection<MessageOwnerRecord>("messageOwners"),
    pending: store.collection<PendingUpdateRecord>("pendingUpdates"),
    leases: store.collection<LeaseRecord>("leases"),
    apply: rendering.showGeneration,
    fetchGeneration: async (target, generationId) =>
      (await connections.clientFor(target.teamId)).generations.get(generationId),
    tellRequester: rendering.tellRequester,
    tellPermissionMissing: rendering.tellPermissionMissing,
    announce: {
      notices: store.collection<CompletionNoticeRecord>("completionNotices"),
      post: rendering.announceEnd,
    },
    onEnded: (target, generation) => usage.ended(target.teamId, generation.id),
    retentionMs: config.messageRetentionDays * DAY_MS,
    logger,
  });
  const claims = new OnceClaims(store.collection<ClaimRecord>("claims"));
  return {
    store,
    secretBox,
    claims,
    connections,
    updates,
    usage,
    settings,
    generations: new ChatGenerations({ platform, connections, usage, settings, secretBox, updates }),
    purchases: new ChatPurchases({
      connections,
      usage,
      settings,
      secretBox,
      groupLabel: rendering.groupLabel,
    }),
    receiver: new WebhookReceiver({ platform, connections, secretBox, updates, logger }),
    async start() {
      const enabled = await connections.enableWebhooks();
      if (enabled.length > 0) logger.warn({ connections: enabled }, "webhooks found disabled, enabled again");
      await connections.subscribeDefault();
      updates.start();
      claims.start();
      // What happened while the bot was down shows: every message in progress is looked up at once.
      await updates.reconcile(0);
    },
    async stop() {
      claims.stop();
      await updates.stop();
      await store.close();
    },
  };
}
