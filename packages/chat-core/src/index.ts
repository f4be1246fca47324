export { createBotLogger, LOG_LEVELS, type Logger, type LogLevel } from "./bot-logger.js";
export type { BotStore, StoreCollection } from "./bot-store.js";
export { type BuyOutcome, buyImage } from "./buy-image.js";
export { type ChatAction, decodeAction, encodeAction } from "./chat-actions.js";
export { type ChatConfig, ChatEnvironmentSchema, chatConfigOf, parseEnvironment } from "./chat-config.js";
export { type ChatCore, type ChatRendering, openChatCore } from "./chat-core.js";
export { describeFailure, NotThisTeamError } from "./chat-errors.js";
export {
  ChatGenerations,
  type RetryOutcome,
  type StartInput,
  type StartOutcome,
  type StartPlace,
} from "./chat-generations.js";
export { type Buyer, ChatPurchases, type PurchaseOutcome, type UpscaleOutcome } from "./chat-purchases.js";
export {
  CHAT_TARGET_KEY,
  type ChatPlatform,
  type ChatTarget,
  ChatTargetSchema,
  chatMetaData,
  chatTargetOf,
  claimsChatTarget,
  signTarget,
  teamTag,
  type UnsignedChatTarget,
} from "./chat-target.js";
export { type FlagParseResult, parseGenerateText } from "./flag-syntax.js";
export {
  type CreateRequestResult,
  type GenerateOptions,
  nameOf,
  type SimpleGenerateOptions,
  TEMPLATE_CHOICES,
  toCreateRequest,
  VALUE_OPTIONS,
} from "./generate-request.js";
export {
  FINAL_RANK,
  type GenerationPhase,
  type GenerationView,
  generationView,
  progressRank,
  queuedView,
  type ViewButton,
} from "./generation-view.js";
export type { Messages } from "./i18n/en.js";
export { DEFAULT_LOCALE, LOCALES, type Locale, localeOf, messagesFor } from "./i18n/locale.js";
export { JsonFileStore } from "./json-file-store.js";
export type { LeaseRecord } from "./leases.js";
export { type ClaimRecord, OnceClaims } from "./once-claims.js";
export { PostgresStore } from "./postgres-store.js";
export { composeGrid, type GridImage } from "./preview-grid.js";
export { fetchPreviews, type PreviewFile } from "./preview-images.js";
export { SecretBox } from "./secret-box.js";
export type {
  CompletionNoticeRecord,
  MessageOwnerRecord,
  PendingUpdateRecord,
  StatusMessageRecord,
  StatusUpdatesOptions,
} from "./status-records.js";
export {
  FormRefusedError,
  MESSAGE_FORMS,
  type MessageForm,
  MessageGoneError,
  PermissionMissingError,
} from "./status-refusals.js";
export { StatusUpdates } from "./status-updates.js";
export {
  DEFAULT_CONNECTION,
  FOLLOWED_EVENTS,
  NotConnectedError,
  type TeamConnectionRecord,
  TeamConnections,
} from "./team-connections.js";
export {
  DAILY_GENERATIONS_MAX,
  DAILY_PURCHASE_CAP_MAX,
  describeSettings,
  type TeamSettings,
  type TeamSettingsChange,
  TeamSettingsStore,
} from "./team-settings.js";
export {
  describeUsage,
  type PersonUsage,
  type Reservation,
  TeamUsage,
  type TeamUsageRecord,
  type UsageLimitsOptions,
} from "./team-usage.js";
export { WebhookReceiver } from "./webhook-receiver.js";
