import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { BOT_SCOPES, missingScopes } from "./slack-scopes.js";

interface Manifest {
  features: { slash_commands: { command: string; url: string }[] };
  oauth_config: { scopes: { bot: string[] }; redirect_urls: string[] };
  settings: { interactivity: { request_url: string }; event_subscriptions: { bot_events: string[] } };
}

const chatBotsPage = await readFile(new URL("../../../docs/chat-bots.md", import.meta.url), "utf8");
const manifest = JSON.parse(
  await readFile(new URL("../slack-app-manifest.json", import.meta.url), "utf8"),
) as Manifest;

describe("slack-app-manifest.json", () => {
  it("asks for the scopes the OAuth installation asks for", () => {
    expect(manifest.oauth_config.scopes.bot).toEqual(BOT_SCOPES);
  });

  it("declares the two commands the bot listens to, on its events endpoint", () => {
    expect(manifest.features.slash_commands.map((command) => command.command)).toEqual([
      "/generate",
      "/imagehub",
    ]);
    for (const command of manifest.features.slash_commands) expect(command.url).toMatch(/\/slack\/events$/);
    expect(manifest.settings.interactivity.request_url).toMatch(/\/slack\/events$/);
  });

  it("redirects OAuth to the bot's redirect path and tells it of uninstalls", () => {
    expect(manifest.oauth_config.redirect_urls[0]).toMatch(/\/slack\/oauth_redirect$/);
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(["app_uninstalled"]);
  });
});

describe("docs/chat-bots.md's Slack install steps", () => {
  it("list the scopes the app asks for, each with why", () => {
    const table = chatBotsPage.slice(chatBotsPage.indexOf("| Bot scope"));
    const rows = table.slice(0, table.indexOf("\n\n")).split("\n").slice(2);
    expect(rows.map((row) => /^\| `([^`]+)`/.exec(row)?.[1])).toEqual(BOT_SCOPES);
  });
});

describe("missingScopes", () => {
  it("names the scopes the bot needs that a token was not granted", () => {
    expect(
      missingScopes(["commands", "chat:write", "chat:write.public", "files:write", "users:read"]),
    ).toEqual(["usergroups:read"]);
    expect(missingScopes([...BOT_SCOPES, "channels:read"])).toEqual([]);
  });
});
