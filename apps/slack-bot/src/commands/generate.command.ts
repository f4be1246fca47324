import { parseGenerateText } from "@imagehub/chat-core";
import type { App } from "@slack/bolt";
import { refusalText } from "../blocks/command-answers.js";
import { generateModal } from "../blocks/generate-modal.blocks.js";
import { unescapeSlackText } from "../blocks/mrkdwn.js";
import { startGeneration } from "../generations/start-generation.js";
import type { SlackServices } from "../slack-services.js";

/**
 * `/generate <description> [flags]`, or `/generate` alone for the modal, in the person's language (asked of
 * Slack for at most a second: the answer still comes within Slack's 3 s); bad flags are the acknowledgement.
 */
export function registerGenerateCommand(app: App, services: SlackServices): void {
  app.command("/generate", async ({ command, ack, client, respond }) => {
    const locale = await services.locales.of(client, command.team_id, command.user_id);
    if (command.text.trim() === "") {
      await ack();
      await client.views.open({
        trigger_id: command.trigger_id,
        view: generateModal(command.channel_id, locale),
      });
      return;
    }
    const parsed = parseGenerateText(unescapeSlackText(command.text), locale);
    if (!parsed.ok) {
      await ack({
        response_type: "ephemeral",
        text: refusalText(parsed.problems, locale, { withSyntax: true }),
      });
      return;
    }
    await ack();
    await startGeneration(services, {
      locale,
      client,
      teamId: command.team_id,
      channelId: command.channel_id,
      userId: command.user_id,
      start: parsed.options,
      tellUser: (text) => respond({ response_type: "ephemeral", text }),
    });
  });
}
