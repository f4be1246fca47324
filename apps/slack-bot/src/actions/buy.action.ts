import { decodeAction, type Logger } from "@imagehub/chat-core";
import type { App, BlockAction, ButtonAction, webApi } from "@slack/bolt";
import { buyAnswer } from "../blocks/buy-answer.blocks.js";
import type { SlackMessage } from "../blocks/mrkdwn.js";
import type { SlackServices } from "../slack-services.js";
import { isInUserGroup, isWorkspaceAdmin } from "../workspace-members.js";
import { BUY_ACTION_ID, channelOf, teamOf } from "./block-actions.js";

/**
 * `Buy n`: buys the image with the workspace's key, when the clicker may (the requester, the workspace's
 * admins, the user group its admins chose) and the daily cap allows, and tells the clicker alone. imagehub
 * debits an image once per account, so a second click (or two at once) answers the same links for nothing.
 */
export function registerBuyAction(app: App, { core, logger }: SlackServices): void {
  app.action<BlockAction<ButtonAction>>(BUY_ACTION_ID, async ({ ack, action, body, client }) => {
    await ack();
    const chosen = decodeAction(action.action_id);
    if (chosen?.kind !== "buy") return;
    const userId = body.user.id;
    const outcome = await core.purchases.buy(
      teamOf(body),
      {
        userId,
        isAdmin: () => isWorkspaceAdmin(client, userId),
        isInGroup: (groupId) => isInUserGroup(client, groupId, userId),
      },
      chosen,
    );
    await tellBuyer(client, { channel: channelOf(body), user: body.user.id }, buyAnswer(outcome), logger);
  });
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
