import { REST, Routes } from "discord.js";
import { commandDefinitions } from "./commands.js";
import { loadDiscordSettings } from "./config.js";

/**
 * `npm run discord:register`: puts the bot's commands on Discord, in one server when DISCORD_GUILD_ID is
 * set (visible at once, for development), else globally.
 */
const discord = loadDiscordSettings(process.env);
const rest = new REST(discord.apiUrl ? { api: discord.apiUrl } : {}).setToken(discord.token);
const route = discord.guildId
  ? Routes.applicationGuildCommands(discord.applicationId, discord.guildId)
  : Routes.applicationCommands(discord.applicationId);
const registered = (await rest.put(route, { body: commandDefinitions() })) as { name: string }[];
console.log(
  `registered ${registered.map((command) => `/${command.name}`).join(", ")} ${discord.guildId ? `in server ${discord.guildId}` : "globally (may take up to an hour to appear)"}`,
);
