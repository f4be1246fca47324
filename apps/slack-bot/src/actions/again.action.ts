import { decodeAction } from "@imagehub/chat-core";
import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import { startGeneration } from "../generations/start-generation.js";
import type { SlackServices } from "../slack-services.js";
import { AGAIN_ACTION_ID, channelOf, teamOf } from "./block-actions.js";

/** Again: the same request with a new seed, in a new status message, for whoever clicked. */
export function registerAgainAction(app: App, services: SlackServices): void {
  app.action<BlockAction<ButtonAction>>(AGAIN_ACTION_ID, async ({ ack, action, body, client, respond }) => {
    await ack();
    const chosen = decodeAction(action.action_id);
    if (chosen?.kind !== "again") return;
    await startGeneration(services, {
      client,
      teamId: teamOf(body),
      channelId: channelOf(body),
      userId: body.user.id,
      start: (place) => services.core.generations.again(place, chosen.generationId),
      tellUser: (text) => respond({ response_type: "ephemeral", replace_original: false, text }),
    });
  });
}
