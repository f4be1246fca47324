import type { ImageGeneration } from "@imagehub/domain";
import { z } from "zod";

export const CHAT_PLATFORMS = ["discord", "slack"] as const;
export type ChatPlatform = (typeof CHAT_PLATFORMS)[number];

/** Where a bot answered a `/generate`: recorded in the generation's metaData so webhook events find it. */
export const ChatTargetSchema = z.object({
  platform: z.enum(CHAT_PLATFORMS),
  /** The Discord server or Slack workspace. */
  teamId: z.string().min(1),
  channelId: z.string().min(1),
  /** The status message to edit: a Discord message id, a Slack message ts. */
  messageId: z.string().min(1),
  /** Who ran the command. */
  userId: z.string().min(1),
});
export type ChatTarget = z.infer<typeof ChatTargetSchema>;

/** The metaData key that holds the ChatTarget. */
export const CHAT_TARGET_KEY = "chat";

export function chatMetaData(target: ChatTarget): Record<string, unknown> {
  return { [CHAT_TARGET_KEY]: target };
}

/** The ChatTarget of a generation a bot started, if it is one. */
export function chatTargetOf(generation: Pick<ImageGeneration, "metaData">): ChatTarget | undefined {
  const parsed = ChatTargetSchema.safeParse(generation.metaData[CHAT_TARGET_KEY]);
  return parsed.success ? parsed.data : undefined;
}

/** The tag a bot puts on a team's generations, so it can count the ones still running. */
export function teamTag(platform: ChatPlatform, teamId: string): string {
  return `${platform}:${teamId}`;
}
