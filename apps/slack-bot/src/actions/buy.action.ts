import { buyImage, decodeAction } from "@imagehub/chat-core";
import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import { buyAnswer } from "../blocks/buy-answer.blocks.js";
import type { SlackServices } from "../slack-services.js";
import { BUY_ACTION_ID, channelOf, teamOf } from "./block-actions.js";

/**
 * `Buy n`: buys the image with the workspace's key and tells the clicker alone. imagehub debits an image
 * once per account, so a second click (or two at once) answers the same links for nothing.
 */
export function registerBuyAction(app: App, { core }: SlackServices): void {
  app.action<BlockAction<ButtonAction>>(BUY_ACTION_ID, async ({ ack, action, body, client }) => {
    await ack();
    const chosen = decodeAction(action.action_id);
    if (chosen?.kind !== "buy") return;
    const outcome = await buyImage(core.connections.clientFor(teamOf(body)), chosen);
    await client.chat.postEphemeral({ channel: channelOf(body), user: body.user.id, ...buyAnswer(outcome) });
  });
}
