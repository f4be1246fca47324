import type { ChatCore } from "@imagehub/chat-core";
import type { App, SlashCommand, webApi } from "@slack/bolt";
import {
  adminsOnlyText,
  CONNECT_USAGE,
  connectedText,
  disconnectedText,
  HELP_TEXT,
  parseSettingsChange,
  settingsText,
  statusText,
  unknownGroupText,
  usageText,
} from "../blocks/command-answers.js";
import { unescapeSlackText } from "../blocks/mrkdwn.js";
import type { SlackServices } from "../slack-services.js";
import { isWorkspaceAdmin, userGroupByHandle } from "../workspace-members.js";

/** `/imagehub connect <key>`, `status`, `usage`, `disconnect`, `settings …`; anything else answers the help. */
export function registerImagehubCommand(app: App, { core }: SlackServices): void {
  app.command("/imagehub", async ({ command, ack, client, respond }) => {
    await ack();
    await respond({ response_type: "ephemeral", text: await answer(command, client, core) });
  });
}

async function answer(
  command: SlashCommand,
  slack: webApi.WebClient,
  { connections, generations, settings }: ChatCore,
) {
  const [subcommand = "", ...rest] = unescapeSlackText(command.text).trim().split(/\s+/);
  const teamId = command.team_id;
  switch (subcommand.toLowerCase()) {
    case "connect": {
      if (!(await isWorkspaceAdmin(slack, command.user_id))) return adminsOnlyText("connect");
      const apiKey = rest.join(" ");
      if (apiKey === "") return CONNECT_USAGE;
      return connectedText(await connections.connect(teamId, apiKey, command.user_id));
    }
    case "status": {
      const imagehub = await connections.clientFor(teamId);
      const [account, { credits }] = await Promise.all([imagehub.keys.check(), imagehub.credits.get()]);
      return statusText({ account, credits, isOwnKey: await connections.isConnected(teamId) });
    }
    case "usage":
      return usageText(await generations.usageOf(teamId, command.user_id));
    case "disconnect": {
      if (!(await isWorkspaceAdmin(slack, command.user_id))) return adminsOnlyText("disconnect");
      return disconnectedText(await connections.disconnect(teamId));
    }
    case "settings": {
      if (!(await isWorkspaceAdmin(slack, command.user_id))) return adminsOnlyText("settings");
      const parsed = parseSettingsChange(rest.filter((word) => word !== ""));
      if (!parsed.ok) return parsed.problem;
      if (parsed.buyersHandle !== undefined) {
        const groupId = await userGroupByHandle(slack, parsed.buyersHandle);
        if (groupId === undefined) return unknownGroupText(parsed.buyersHandle);
        parsed.change.buyersGroupId = groupId;
      }
      const isChanged = Object.keys(parsed.change).length > 0;
      const current = isChanged
        ? await settings.change(teamId, parsed.change, command.user_id)
        : await settings.get(teamId);
      return settingsText(current, isChanged);
    }
    default:
      return HELP_TEXT;
  }
}
