import { type Locale, messagesFor } from "@imagehub/chat-core";

/**
 * The bot token scopes the app asks for; slack-app-manifest.json and the README's install steps list the
 * same (tests check). commands: /generate, /imagehub · chat:write: the status message, updates, ephemeral
 * answers · chat:write.public: public channels without an invitation · files:write: the previews, when
 * imagehub is not public · users:read: whether who runs `/imagehub connect` or clicks Buy is an admin ·
 * usergroups:read: whether who clicks Buy is in the user group the admins chose.
 */
export const BOT_SCOPES = [
  "commands",
  "chat:write",
  "chat:write.public",
  "files:write",
  "users:read",
  "usergroups:read",
];

/** The scopes the bot needs that a token lacks, from those Slack says it has (x-oauth-scopes). */
export function missingScopes(granted: readonly string[]): string[] {
  return BOT_SCOPES.filter((scope) => !granted.includes(scope));
}

/**
 * What whoever installed the app does about scopes it lacks, in a language (the operator's log reads
 * English): an app installed before the bot needed them keeps the scopes it was granted until it is installed
 * again.
 */
export function grantScopesAdvice(missing: readonly string[], locale?: Locale): string {
  return messagesFor(locale).slack.grantScopes(missing.map((scope) => `\`${scope}\``).join(", "));
}
