import { FormRefusedError, type Locale, MessageGoneError, PermissionMissingError } from "@imagehub/chat-core";
import { DiscordAPIError, type REST, Routes } from "discord.js";
import { PERMISSIONS_REFUSED, permissionNames } from "./channel-permissions.js";
import type { AllowedMentions, StatusMessage } from "./messages.js";

/**
 * Discord's refusals that no later try will change: the message or its channel deleted (10008, 10003).
 * A permission refused (50001, 50013) is not one: an admin may grant it, and the message catches up then.
 * https://discord.com/developers/docs/topics/opcodes-and-status-codes#json
 */
const GONE_CODES = new Set([10003, 10008]);
/**
 * Refusals of what the message holds, which a plainer message avoids: 40005 Request entity too large (an
 * upload past the server's limit), 50035 Invalid Form Body.
 */
const FORM_CODES = new Set([40005, 50035]);

/**
 * Edits status messages long after their command: through the channel with the bot's token, as
 * interaction tokens expire after 15 minutes and a generation may wait longer in the queue.
 */
export class StatusMessages {
  constructor(private readonly rest: REST) {}

  /**
   * Replaces the message's embeds, buttons and attachments. discord.js sits out rate limits (429 and its
   * retry_after, the X-RateLimit headers); a refusal that will not heal is a MessageGoneError, a permission
   * the bot lacks a PermissionMissingError, naming it in the requester's language.
   */
  async edit(channelId: string, messageId: string, message: StatusMessage, locale: Locale): Promise<void> {
    await withRefusalsNamed(locale, () =>
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

  /**
   * Posts a new message in the channel (the completion notice). Not as a reply: Discord refuses a reply
   * without Read Message History (160002), which the bot needs for nothing else; the notice links the message.
   */
  async post(
    channelId: string,
    notice: { content: string; allowed_mentions: AllowedMentions },
    locale: Locale,
  ): Promise<void> {
    await withRefusalsNamed(locale, () =>
      this.rest.post(Routes.channelMessages(channelId), { body: notice }),
    );
  }

  /** Sends a person a direct message (the bot's DM channel with them, opened or found). */
  async sendDirect(
    userId: string,
    notice: { content: string; allowed_mentions: AllowedMentions },
  ): Promise<void> {
    const channel = (await this.rest.post(Routes.userChannels(), { body: { recipient_id: userId } })) as {
      id: string;
    };
    await this.rest.post(Routes.channelMessages(channel.id), { body: notice });
  }
}

/** Discord's refusals as chat-core's queue tells them apart: gone, a permission lacking, a form refused. */
async function withRefusalsNamed(locale: Locale, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (error instanceof DiscordAPIError && typeof error.code === "number") {
      const reason = `Discord ${error.code}: ${error.message}`;
      const permissions = PERMISSIONS_REFUSED.get(error.code);
      if (permissions) throw new PermissionMissingError(permissionNames(permissions, locale), reason);
      if (GONE_CODES.has(error.code)) throw new MessageGoneError(reason);
      if (FORM_CODES.has(error.code)) throw new FormRefusedError(reason);
    }
    throw error;
  }
}
