import { toCreateRequest } from "@imagehub/chat-core";
import type { App } from "@slack/bolt";
import {
  channelOfModal,
  GENERATE_MODAL_ID,
  modalErrors,
  optionsFromModal,
} from "../blocks/generate-modal.blocks.js";
import { startGeneration } from "../generations/start-generation.js";
import type { SlackServices } from "../slack-services.js";

/** The modal's submission: bad values stay in the modal as field errors; good ones start the generation. */
export function registerGenerateModal(app: App, services: SlackServices): void {
  app.view(GENERATE_MODAL_ID, async ({ ack, body, view, client }) => {
    const options = optionsFromModal(view.state.values);
    const checked = toCreateRequest(options);
    if (!checked.ok) {
      await ack({ response_action: "errors", errors: modalErrors(checked.problems) });
      return;
    }
    await ack();
    const channelId = channelOfModal(view.private_metadata);
    const userId = body.user.id;
    const teamId = body.team?.id ?? view.team_id;
    await startGeneration(services, {
      client,
      teamId,
      channelId,
      userId,
      locale: await services.locales.of(client, teamId, userId),
      start: options,
      tellUser: (text) => client.chat.postEphemeral({ channel: channelId, user: userId, text }),
    });
  });
}
