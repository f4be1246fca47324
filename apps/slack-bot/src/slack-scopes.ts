/**
 * The bot token scopes the app asks for; slack-app-manifest.json lists the same (a test checks).
 * commands: /generate, /imagehub · chat:write: the status message, updates, ephemeral answers ·
 * chat:write.public: public channels without an invitation · files:write: the previews, when imagehub is
 * not public · users:read: whether who runs `/imagehub connect` or clicks Buy is an admin · usergroups:read:
 * whether who clicks Buy is in the user group the admins chose.
 */
export const BOT_SCOPES = [
  "commands",
  "chat:write",
  "chat:write.public",
  "files:write",
  "users:read",
  "usergroups:read",
];
