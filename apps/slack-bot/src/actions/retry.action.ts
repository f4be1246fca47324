import { decodeAction } from "@imagehub/chat-core";
import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import type { SlackServices } from "../slack-services.js";
import { RETRY_ACTION_ID, teamOf } from "./block-actions.js";

/** Retry under a failed generation: imagehub runs it again and its message follows it from "Queued". */
export function registerRetryAction(app: App, { core }: SlackServices): void {
  app.action<BlockAction<ButtonAction>>(RETRY_ACTION_ID, async ({ ack, action, body }) => {
    await ack();
    const chosen = decodeAction(action.action_id);
    if (chosen?.kind !== "retry") return;
    // Before the request: the new attempt's first events may arrive before its answer does.
    await core.receiver.restart(chosen.generationId);
    const teamId = teamOf(body);
    const generation = await core.generations.retry(teamId, chosen.generationId);
    await core.receiver.show(teamId, generation);
  });
}
