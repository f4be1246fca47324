import type { ChatCore, Locale } from "@imagehub/chat-core";
import type { App, SlashCommand, webApi } from "@slack/bolt";
import {
  adminsOnlyText,
  connectedText,
  connectUsageText,
  disconnectedText,
  helpText,
  parseSettingsChange,
  settingsText,
  statusText,
  unknownGroupText,
  usageText,
} from "../blocks/command-answers.js";
import { unescapeSlackText } from "../blocks/mrkdwn.js";
import type { SlackServices } from "../slack-services.js";
import { isWorkspaceAdmin, userGroupByHandle } from "../workspace-members.js";

/**
 * `/imagehub connect <key>`, `status`, `usage`, `disconnect`, `settings …`; anything else answers the help.
 * Answered in the person's language.
 */
export function registerImagehubCommand(app: App, { core, locales }: SlackServices): void {
  app.command("/imagehub", async ({ command, ack, client, respond }) => {
    await ack();
    const locale = await locales.of(client, command.team_id, command.user_id);
    await respond({ response_type: "ephemeral", text: await answer(command, client, core, locale) });
  });
}

async function answer(
  command: SlashCommand,
  slack: webApi.WebClient,
  { connections, generations, settings }: ChatCore,
  locale: Locale,
) {
  const [subcommand = "", ...rest] = unescapeSlackText(command.text).trim().split(/\s+/);
  const teamId = command.team_id;
  switch (subcommand.toLowerCase()) {
    case "connect": {
      if (!(await isWorkspaceAdmin(slack, command.user_id))) return adminsOnlyText("connect", locale);
      const apiKey = rest.join(" ");
      if (apiKey === "") return connectUsageText(locale);
      return connectedText(await connections.connect(teamId, apiKey, command.user_id), locale);
    }
    case "status": {
      const imagehub = await connections.clientFor(teamId);
      const [account, { credits }] = await Promise.all([imagehub.keys.check(), imagehub.credits.get()]);
      return statusText({ account, credits, isOwnKey: await connections.isConnected(teamId), locale });
    }
    case "usage":
      return usageText(await generations.usageOf(teamId, command.user_id), locale);
    case "disconnect": {
      if (!(await isWorkspaceAdmin(slack, command.user_id))) return adminsOnlyText("disconnect", locale);
      return disconnectedText(await connections.disconnect(teamId), locale);
    }
    case "settings": {
      if (!(await isWorkspaceAdmin(slack, command.user_id))) return adminsOnlyText("settings", locale);
      const parsed = parseSettingsChange(
        rest.filter((word) => word !== ""),
        locale,
      );
      if (!parsed.ok) return parsed.problem;
      if (parsed.buyersHandle !== undefined) {
        const groupId = await userGroupByHandle(slack, parsed.buyersHandle);
        if (groupId === undefined) return unknownGroupText(parsed.buyersHandle, locale);
        parsed.change.buyersGroupId = groupId;
      }
      const isChanged = Object.keys(parsed.change).length > 0;
      const current = isChanged
        ? await settings.change(teamId, parsed.change, command.user_id)
        : await settings.get(teamId);
      return settingsText(current, isChanged, locale);
    }
    default:
      return helpText(locale);
  }
}
