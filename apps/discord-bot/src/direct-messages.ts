import type { Interaction } from "discord.js";

/**
 * A person's direct messages with the bot are a team of their own: their own imagehub key (the bot's default
 * key serves servers only), their own limits. Its id cannot be a server's (a snowflake).
 */
const DIRECT_PREFIX = "dm-";

/** The team an interaction acts for: its server, or the person in direct messages. */
export function teamOf(interaction: Interaction): string {
  return interaction.guildId ?? `${DIRECT_PREFIX}${interaction.user.id}`;
}

export function isDirectTeam(teamId: string): boolean {
  return teamId.startsWith(DIRECT_PREFIX);
}
