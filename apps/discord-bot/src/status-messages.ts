import { MessageGoneError } from "@imagehub/chat-core";
import { DiscordAPIError, type REST, Routes } from "discord.js";
import type { StatusMessage } from "./messages.js";

/**
 * Discord's refusals that no later try will change: the message or its channel deleted (10008, 10003),
 * the channel hidden from the bot or its permissions taken away (50001 Missing Access, 50013 Missing
 * Permissions). https://discord.com/developers/docs/topics/opcodes-and-status-codes#json
 */
const GONE_CODES = new Set([10003, 10008, 50001, 50013]);

/**
 * Edits status messages long after their command: through the channel with the bot's token, as
 * interaction tokens expire after 15 minutes and a generation may wait longer in the queue.
 */
export class StatusMessages {
  constructor(private readonly rest: REST) {}

  /**
   * Replaces the message's embeds, buttons and attachments. discord.js sits out rate limits (429 and its
   * retry_after, the X-RateLimit headers); a refusal that will not heal is a MessageGoneError.
   */
  async edit(channelId: string, messageId: string, message: StatusMessage): Promise<void> {
    await goneWhenRefusedForGood(() =>
      this.rest.patch(Routes.channelMessage(channelId, messageId), {
        body: {
          embeds: message.embeds,
          components: message.components,
          allowed_mentions: message.allowed_mentions,
          attachments: message.files.map((file, index) => ({
            id: index,
            filename: file.name,
            description: file.description,
          })),
        },
        files: message.files,
      }),
    );
  }

  /** Posts a new message in the channel, as a reply to the status message (the completion notice). */
  async reply(
    channelId: string,
    messageId: string,
    notice: { content: string; allowed_mentions: { parse: []; users: string[] } },
  ): Promise<void> {
    await goneWhenRefusedForGood(() =>
      this.rest.post(Routes.channelMessages(channelId), {
        body: { ...notice, message_reference: { message_id: messageId, fail_if_not_exists: false } },
      }),
    );
  }
}

async function goneWhenRefusedForGood(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (error instanceof DiscordAPIError && typeof error.code === "number" && GONE_CODES.has(error.code)) {
      throw new MessageGoneError(`Discord ${error.code}: ${error.message}`);
    }
    throw error;
  }
}
