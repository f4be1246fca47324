import { type ChatConfig, ChatEnvironmentSchema, chatConfigOf, parseEnvironment } from "@imagehub/chat-core";
import { z } from "zod";

const DiscordEnvironmentSchema = z.object({
  DISCORD_TOKEN: z.string().min(1),
  DISCORD_APPLICATION_ID: z.string().regex(/^\d+$/, "a Discord application id (digits)"),
  /** Register the commands in this server only (instant, for development) instead of globally. */
  DISCORD_GUILD_ID: z.string().regex(/^\d+$/, "a Discord server id (digits)").optional(),
  /** Discord's REST API, e.g. through a proxy; Discord itself by default. */
  DISCORD_API_URL: z.url().optional(),
});

export interface DiscordSettings {
  token: string;
  applicationId: string;
  guildId: string | undefined;
  apiUrl: string | undefined;
}

export interface DiscordBotConfig extends ChatConfig {
  discord: DiscordSettings;
}

/** What registering the commands needs: the Discord variables alone. */
export function loadDiscordSettings(env: NodeJS.ProcessEnv): DiscordSettings {
  const values = parseEnvironment(DiscordEnvironmentSchema, env);
  return {
    token: values.DISCORD_TOKEN,
    applicationId: values.DISCORD_APPLICATION_ID,
    guildId: values.DISCORD_GUILD_ID,
    apiUrl: values.DISCORD_API_URL,
  };
}

export function loadDiscordConfig(env: NodeJS.ProcessEnv): DiscordBotConfig {
  const chat = parseEnvironment(
    ChatEnvironmentSchema.extend({ BOT_DATA_DIR: z.string().min(1).default(".data/discord-bot") }),
    env,
  );
  return { ...chatConfigOf(chat), discord: loadDiscordSettings(env) };
}
