import { DiscordAPIError, type REST, Routes } from "discord.js";
import type { StatusMessage } from "./messages.js";

/** Discord's code for a message that no longer exists (deleted by someone). */
const UNKNOWN_MESSAGE = 10008;
const UNKNOWN_CHANNEL = 10003;

/**
 * Edits status messages long after their command: through the channel with the bot's token, as
 * interaction tokens expire after 15 minutes and a generation may wait longer in the queue.
 */
export class StatusMessages {
  constructor(private readonly rest: REST) {}

  /**
   * Replaces the message's embeds, buttons and attachments. A message someone deleted (or its channel) is
   * left alone: failing would only make imagehub deliver the event again until it gives up.
   */
  async edit(channelId: string, messageId: string, message: StatusMessage): Promise<void> {
    try {
      await this.rest.patch(Routes.channelMessage(channelId, messageId), {
        body: {
          embeds: message.embeds,
          components: message.components,
          attachments: message.files.map((file, index) => ({ id: index, filename: file.name })),
        },
        files: message.files,
      });
    } catch (error) {
      const isGone =
        error instanceof DiscordAPIError &&
        (error.code === UNKNOWN_MESSAGE || error.code === UNKNOWN_CHANNEL);
      if (!isGone) throw error;
    }
  }
}
