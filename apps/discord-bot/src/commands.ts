import { DAILY_GENERATIONS_MAX, DAILY_PURCHASE_CAP_MAX, TEMPLATE_CHOICES } from "@imagehub/chat-core";
import {
  CAMERA_MAX_LENGTH,
  CHAOS_MAX,
  FORMATS,
  INTERDICTION_MAX_LENGTH,
  STYLIZE_MAX,
  TIMES,
  WEATHERS,
} from "@imagehub/domain";
import {
  InteractionContextType,
  PermissionFlagsBits,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  SlashCommandBuilder,
} from "discord.js";

const choices = (values: readonly string[]) => values.map((value) => ({ name: value, value }));

/**
 * Where the commands are offered: server channels, and a person's direct messages with the bot, where
 * their own connected key serves them alone.
 */
const CONTEXTS = [InteractionContextType.Guild, InteractionContextType.BotDM];

/** The commands, as data: registered by register.ts, dispatched by name in interactions.ts. */
export const COMMANDS = {
  generate: new SlashCommandBuilder()
    .setName("generate")
    .setDescription("Generate 4 images from a description")
    .setContexts(CONTEXTS)
    .addStringOption((option) =>
      option.setName("prompt").setDescription("What the images show").setRequired(true).setMaxLength(4096),
    )
    .addStringOption((option) =>
      option
        .setName("format")
        .setDescription("Aspect ratio")
        .addChoices(...choices(FORMATS)),
    )
    .addStringOption((option) =>
      option
        .setName("weather")
        .setDescription("Weather")
        .addChoices(...choices(WEATHERS)),
    )
    .addStringOption((option) =>
      option
        .setName("time")
        .setDescription("Time of day")
        .addChoices(...choices(TIMES)),
    )
    .addStringOption((option) =>
      option
        .setName("template")
        .setDescription("Photo style")
        .addChoices(...choices(Object.keys(TEMPLATE_CHOICES))),
    )
    .addIntegerOption((option) =>
      option
        .setName("chaos")
        .setDescription("How different the 4 images are (0-100)")
        .setMinValue(0)
        .setMaxValue(CHAOS_MAX),
    )
    .addIntegerOption((option) =>
      option
        .setName("stylize")
        .setDescription("How strongly a style is applied (0-1000)")
        .setMinValue(0)
        .setMaxValue(STYLIZE_MAX),
    )
    .addStringOption((option) =>
      option.setName("camera").setDescription("Camera or lens, e.g. 35mm").setMaxLength(CAMERA_MAX_LENGTH),
    )
    .addStringOption((option) =>
      option
        .setName("avoid")
        .setDescription("Things that must not appear, separated by commas")
        .setMaxLength(INTERDICTION_MAX_LENGTH),
    )
    .addBooleanOption((option) =>
      option.setName("optimize").setDescription("Rewrite the description into a fuller one"),
    )
    .addBooleanOption((option) => option.setName("fast").setDescription("Fast mode (dedicated plan)")),
  "generate-advanced": new SlashCommandBuilder()
    .setName("generate-advanced")
    .setDescription("Generate 4 images from a third-party (Midjourney-style) command")
    .setContexts(CONTEXTS)
    .addStringOption((option) =>
      option
        .setName("command")
        .setDescription("e.g. a castle at dawn --ar 16:9 --chaos 20 --no people")
        .setRequired(true)
        .setMaxLength(4096),
    )
    .addBooleanOption((option) => option.setName("fast").setDescription("Fast mode (dedicated plan)")),
  imagehub: new SlashCommandBuilder()
    .setName("imagehub")
    .setDescription("Connect this server (or, in direct messages, yourself) to an imagehub account")
    .setContexts(CONTEXTS)
    // Discord hides the command in servers from members without Manage Server; the handler checks again.
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
    .addSubcommand((command) =>
      command
        .setName("connect")
        .setDescription("Use an imagehub API key for this server")
        .addStringOption((option) => option.setName("key").setDescription("The API key").setRequired(true)),
    )
    .addSubcommand((command) =>
      command.setName("status").setDescription("The connected account and its credits"),
    )
    .addSubcommand((command) =>
      command.setName("usage").setDescription("Your generations today and the limits they count against"),
    )
    .addSubcommand((command) => command.setName("disconnect").setDescription("Forget this server's API key"))
    .addSubcommand((command) =>
      command
        .setName("settings")
        .setDescription("Who may buy, and the daily caps; without options, the current settings")
        .addRoleOption((option) =>
          option
            .setName("buyers")
            .setDescription("A role whose members may buy (besides requester and admins)"),
        )
        .addIntegerOption((option) =>
          option
            .setName("daily-cap")
            .setDescription("Images this server buys per day at most (UTC)")
            .setMinValue(0)
            .setMaxValue(DAILY_PURCHASE_CAP_MAX),
        )
        .addIntegerOption((option) =>
          option
            .setName("daily-generations")
            .setDescription("Generations each person starts per day at most (UTC)")
            .setMinValue(0)
            .setMaxValue(DAILY_GENERATIONS_MAX),
        )
        .addBooleanOption((option) =>
          option.setName("no-buyers-role").setDescription("Only the requester and the admins may buy"),
        )
        .addBooleanOption((option) =>
          option.setName("no-daily-generations").setDescription("No daily quota of generations per person"),
        )
        .addBooleanOption((option) => option.setName("no-cap").setDescription("No daily cap")),
    ),
} as const;

export type CommandName = keyof typeof COMMANDS;

export function commandDefinitions(): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  return Object.values(COMMANDS).map((command) => command.toJSON());
}
