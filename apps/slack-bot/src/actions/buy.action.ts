import { type Buyer, decodeAction, type Locale, type Logger } from "@imagehub/chat-core";
import type { App, BlockAction, ButtonAction, webApi } from "@slack/bolt";
import { buyAnswer } from "../blocks/buy-answer.blocks.js";
import type { SlackMessage } from "../blocks/mrkdwn.js";
import type { SlackServices } from "../slack-services.js";
import { isInUserGroup, isWorkspaceAdmin } from "../workspace-members.js";
import { BUY_ACTION_ID, channelOf, teamOf, UPSCALE_ACTION_ID } from "./block-actions.js";

/**
 * `Buy n`: buys the image with the workspace's key, when the clicker may (the requester, the workspace's
 * admins, the user group its admins chose) and the daily cap allows, and tells the clicker alone. imagehub
 * debits an image once per account, so a second click (or two at once) answers the same links for nothing.
 */
export function registerBuyAction(app: App, { core, locales, logger }: SlackServices): void {
  app.action<BlockAction<ButtonAction>>(BUY_ACTION_ID, async ({ ack, action, body, client }) => {
    await ack();
    const chosen = decodeAction(action.action_id);
    if (chosen?.kind !== "buy") return;
    const teamId = teamOf(body);
    const locale = await locales.of(client, teamId, body.user.id);
    const outcome = await core.purchases.buy(teamId, buyerOf(client, body.user.id, locale), chosen);
    await tellBuyer(
      client,
      { channel: channelOf(body), user: body.user.id },
      buyAnswer(outcome, locale),
      logger,
    );
  });
}

/**
 * `U n`: bought as `Buy n`, the links told to the clicker alone; then the clean image in full size in the
 * message's thread (Slack has no ephemeral files), once per image.
 */
export function registerUpscaleAction(
  app: App,
  { core, statusMessages, locales, logger }: SlackServices,
): void {
  app.action<BlockAction<ButtonAction>>(UPSCALE_ACTION_ID, async ({ ack, action, body, client }) => {
    await ack();
    const chosen = decodeAction(action.action_id);
    if (chosen?.kind !== "upscale") return;
    const teamId = teamOf(body);
    const channelId = channelOf(body);
    const locale = await locales.of(client, teamId, body.user.id);
    const outcome = await core.purchases.upscale(teamId, buyerOf(client, body.user.id, locale), chosen);
    await tellBuyer(client, { channel: channelId, user: body.user.id }, buyAnswer(outcome, locale), logger);
    const messageId = body.container.message_ts;
    if (outcome.kind !== "bought" || typeof messageId !== "string") return;
    await statusMessages.shareFullSize(
      client,
      { channelId, messageId },
      { generationId: chosen.generationId, fullSize: outcome.fullSize, userId: body.user.id, locale },
    );
  });
}

/** Who clicked, as the team's purchase rules ask (Slack is asked only when it matters). */
function buyerOf(client: webApi.WebClient, userId: string, locale: Locale): Buyer {
  return {
    userId,
    locale,
    isAdmin: () => isWorkspaceAdmin(client, userId),
    isInGroup: (groupId) => isInUserGroup(client, groupId, userId),
  };
}

/**
 * The answer, seen by the buyer alone; when Slack refuses the ephemeral message (a channel the bot was
 * never invited to answers not_in_channel), the buyer has paid already: the links go by direct message.
 */
async function tellBuyer(
  client: webApi.WebClient,
  { channel, user }: { channel: string; user: string },
  answer: SlackMessage,
  logger: Pick<Logger, "warn">,
): Promise<void> {
  try {
    await client.chat.postEphemeral({ channel, user, ...answer });
  } catch (error) {
    logger.warn(
      { err: error, channel, user },
      "ephemeral answer refused; sending the links by direct message",
    );
    await client.chat.postMessage({ channel: user, ...answer });
  }
}
