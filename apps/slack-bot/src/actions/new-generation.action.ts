import { decodeAction } from "@imagehub/chat-core";
import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import { startGeneration } from "../generations/start-generation.js";
import type { SlackServices } from "../slack-services.js";
import { channelOf, NEW_GENERATION_ACTION_ID, teamOf } from "./block-actions.js";

/**
 * Again (the same request with a new seed) and V n (a variation of image n): a new generation in a new
 * status message, for whoever clicked.
 */
export function registerNewGenerationActions(app: App, services: SlackServices): void {
  app.action<BlockAction<ButtonAction>>(
    NEW_GENERATION_ACTION_ID,
    async ({ ack, action, body, client, respond }) => {
      await ack();
      const chosen = decodeAction(action.action_id);
      if (chosen?.kind !== "again" && chosen?.kind !== "vary") return;
      const { generations } = services.core;
      const teamId = teamOf(body);
      await startGeneration(services, {
        client,
        teamId,
        channelId: channelOf(body),
        userId: body.user.id,
        locale: await services.locales.of(client, teamId, body.user.id),
        start: (place) =>
          chosen.kind === "again"
            ? generations.again(place, chosen.generationId)
            : generations.vary(place, chosen.generationId, chosen.imageNumber),
        tellUser: (text) => respond({ response_type: "ephemeral", replace_original: false, text }),
      });
    },
  );
}
