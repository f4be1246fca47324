import { decodeAction } from "@imagehub/chat-core";
import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import { refusalText } from "../blocks/command-answers.js";
import type { SlackServices } from "../slack-services.js";
import { RETRY_ACTION_ID, teamOf } from "./block-actions.js";

/**
 * Retry under a failed generation: imagehub runs it again and its message follows it from "Queued", when the
 * clicker's cooldown and the team's running limit allow (told to them alone otherwise).
 */
export function registerRetryAction(app: App, { core, locales }: SlackServices): void {
  app.action<BlockAction<ButtonAction>>(RETRY_ACTION_ID, async ({ ack, action, body, client, respond }) => {
    await ack();
    const chosen = decodeAction(action.action_id);
    if (chosen?.kind !== "retry") return;
    const teamId = teamOf(body);
    const locale = await locales.of(client, teamId, body.user.id);
    const outcome = await core.generations.retry(
      { teamId, userId: body.user.id, locale },
      chosen.generationId,
    );
    if (outcome.kind === "refused") {
      await respond({
        response_type: "ephemeral",
        replace_original: false,
        text: refusalText(outcome.problems, locale),
      });
      return;
    }
    await core.receiver.show(teamId, outcome.generation);
  });
}
