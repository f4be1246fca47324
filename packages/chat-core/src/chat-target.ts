import type { ImageGeneration } from "@imagehub/domain";
import { z } from "zod";
import { LOCALES } from "./i18n/locale.js";
import type { SecretBox } from "./secret-box.js";

export const CHAT_PLATFORMS = ["discord", "slack"] as const;
export type ChatPlatform = (typeof CHAT_PLATFORMS)[number];

/**
 * Where a bot answered a `/generate`: recorded in the generation's metaData so webhook events find it.
 * Anyone with an API key can write any metaData, so the bot signs what it writes and trusts only that.
 */
export const ChatTargetSchema = z.object({
  platform: z.enum(CHAT_PLATFORMS),
  /** The Discord server or Slack workspace. */
  teamId: z.string().min(1),
  channelId: z.string().min(1),
  /** The status message to edit: a Discord message id, a Slack message ts. */
  messageId: z.string().min(1),
  /** Who ran the command. */
  userId: z.string().min(1),
  /**
   * When the bot posted the message (ms): its generation is created right after, so a generation created
   * long after is not the message's own (a signed target copied onto another generation). Absent on targets
   * signed before it was written down.
   */
  postedAt: z.number().int().nonnegative().optional(),
  /**
   * The requester's language: the message, its notices and every later update are worded in it. Absent on
   * targets signed before it was written down (English).
   */
  locale: z.enum(LOCALES).optional(),
  /** The bot's HMAC of the fields above (SecretBox.sign). */
  signature: z.string().min(1),
});
export type ChatTarget = z.infer<typeof ChatTargetSchema>;
export type UnsignedChatTarget = Omit<ChatTarget, "signature">;

/** The metaData key that holds the ChatTarget. */
export const CHAT_TARGET_KEY = "chat";

export function signTarget(target: UnsignedChatTarget, secretBox: SecretBox): ChatTarget {
  return { ...target, signature: secretBox.sign(signedText(target)) };
}

export function chatMetaData(target: ChatTarget): Record<string, unknown> {
  return { [CHAT_TARGET_KEY]: target };
}

/**
 * The ChatTarget of a generation, when this bot wrote it (its signature holds); undefined for generations
 * of other bots or none, and for targets someone else wrote.
 */
export function chatTargetOf(
  generation: Pick<ImageGeneration, "metaData">,
  secretBox: SecretBox,
): ChatTarget | undefined {
  const parsed = ChatTargetSchema.safeParse(generation.metaData[CHAT_TARGET_KEY]);
  if (!parsed.success) return undefined;
  return secretBox.isSignedByThisBot(signedText(parsed.data), parsed.data.signature)
    ? parsed.data
    : undefined;
}

/** Whether a generation claims to belong to a chat message at all (signed or not). */
export function claimsChatTarget(generation: Pick<ImageGeneration, "metaData">): boolean {
  return Object.hasOwn(generation.metaData, CHAT_TARGET_KEY);
}

/** The tag a bot puts on a team's generations, so it can count the ones still running. */
export function teamTag(platform: ChatPlatform, teamId: string): string {
  return `${platform}:${teamId}`;
}

/** How long after its message a generation may be created and still be the message's own. */
export const TARGET_CLAIM_WINDOW_MS = 10 * 60_000;

/** Whether a generation was created soon enough after its signed target's message to be its own. */
export function isCreatedWithItsMessage(
  target: ChatTarget,
  generation: Pick<ImageGeneration, "createdAt">,
): boolean {
  return (
    target.postedAt === undefined ||
    Date.parse(generation.createdAt) <= target.postedAt + TARGET_CLAIM_WINDOW_MS
  );
}

/** JSON of the fields in a fixed order: the same target always signs to the same text. */
function signedText({
  platform,
  teamId,
  channelId,
  messageId,
  userId,
  postedAt,
  locale,
}: UnsignedChatTarget): string {
  const fields: (string | number)[] = [platform, teamId, channelId, messageId, userId];
  if (postedAt !== undefined) fields.push(postedAt);
  // Last, and only when set: targets signed before it was written down still verify.
  if (locale !== undefined) fields.push(locale);
  return JSON.stringify(fields);
}
