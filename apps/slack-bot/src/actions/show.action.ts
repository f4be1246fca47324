import { decodeAction, messagesFor } from "@imagehub/chat-core";
import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import type { SlackServices } from "../slack-services.js";
import { channelOf, SHOW_ACTION_ID, teamOf } from "./block-actions.js";

/** Show all: the 4 previews one by one in the message's thread (Slack has no ephemeral files). */
export function registerShowAction(app: App, { core, statusMessages, locales }: SlackServices): void {
  app.action<BlockAction<ButtonAction>>(SHOW_ACTION_ID, async ({ ack, action, body, client, respond }) => {
    await ack();
    const chosen = decodeAction(action.action_id);
    if (chosen?.kind !== "show") return;
    const teamId = teamOf(body);
    const locale = await locales.of(client, teamId, body.user.id);
    const generation = await core.generations.read(teamId, chosen.generationId);
    const messageId = body.container.message_ts;
    if (typeof messageId !== "string") throw new Error("the click does not say its message");
    const isShared = await statusMessages.shareEach(
      client,
      { teamId, channelId: channelOf(body), messageId },
      generation,
      locale,
    );
    const { slack } = messagesFor(locale);
    await respond({
      response_type: "ephemeral",
      replace_original: false,
      text: isShared
        ? `:thread: ${slack.inThread(generation.images.length)}`
        : `:warning: ${slack.imagesRefused}`,
    });
  });
}
