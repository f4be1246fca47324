import { type Locale, messagesFor } from "@imagehub/chat-core";
import type { PermissionsString } from "discord.js";

/**
 * What the bot needs in a channel to follow a generation there: its answer goes through the interaction's
 * webhook, which works anywhere, but the edits after it (the interaction's token lasts 15 minutes) act as
 * the bot user, which Discord refuses where the bot cannot see the channel or post, embed and attach.
 */
export const CHANNEL_PERMISSIONS = [
  "ViewChannel",
  "SendMessages",
  "EmbedLinks",
  "AttachFiles",
] as const satisfies readonly PermissionsString[];

export type ChannelPermission = (typeof CHANNEL_PERMISSIONS)[number];

/**
 * The permissions a refusal of the bot user names, as a server admin finds them in the channel's settings:
 * 50001 Missing Access (the channel hidden from the bot), 50013 Missing Permissions (Discord does not say
 * which: those the bot posts, embeds and attaches with).
 * https://discord.com/developers/docs/topics/opcodes-and-status-codes#json
 */
export const PERMISSIONS_REFUSED: ReadonlyMap<number, readonly ChannelPermission[]> = new Map([
  [50001, ["ViewChannel"]],
  [50013, ["SendMessages", "EmbedLinks", "AttachFiles"]],
]);

/**
 * Permissions as a sentence of a language lists them, named as Discord's client shows them in that language:
 * "Send Messages, Embed Links and Attach Files".
 */
export function permissionNames(permissions: readonly ChannelPermission[], locale: Locale): string {
  const { discord } = messagesFor(locale);
  const names = permissions.map((permission) => discord.permissionNames[permission]);
  return names.length <= 1
    ? (names[0] ?? "")
    : `${names.slice(0, -1).join(", ")} ${discord.and} ${names.at(-1)}`;
}
