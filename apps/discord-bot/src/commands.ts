import {
  DAILY_GENERATIONS_MAX,
  DAILY_PURCHASE_CAP_MAX,
  messagesFor,
  TEMPLATE_CHOICES,
} from "@imagehub/chat-core";
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

/** The descriptions in English, and in French for Discord clients set to French (Discord's locale "fr"). */
const EN = messagesFor("en").discordCommands;
const FR = messagesFor("fr").discordCommands;

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
    .setDescription(EN.generate)
    .setDescriptionLocalizations({ fr: FR.generate })
    .setContexts(CONTEXTS)
    .addStringOption((option) =>
      option
        .setName("prompt")
        .setDescription(EN.prompt)
        .setDescriptionLocalizations({ fr: FR.prompt })
        .setRequired(true)
        .setMaxLength(4096),
    )
    .addStringOption((option) =>
      option
        .setName("format")
        .setDescription(EN.format)
        .setDescriptionLocalizations({ fr: FR.format })
        .addChoices(...choices(FORMATS)),
    )
    .addStringOption((option) =>
      option
        .setName("weather")
        .setDescription(EN.weather)
        .setDescriptionLocalizations({ fr: FR.weather })
        .addChoices(...choices(WEATHERS)),
    )
    .addStringOption((option) =>
      option
        .setName("time")
        .setDescription(EN.time)
        .setDescriptionLocalizations({ fr: FR.time })
        .addChoices(...choices(TIMES)),
    )
    .addStringOption((option) =>
      option
        .setName("template")
        .setDescription(EN.template)
        .setDescriptionLocalizations({ fr: FR.template })
        .addChoices(...choices(Object.keys(TEMPLATE_CHOICES))),
    )
    .addIntegerOption((option) =>
      option
        .setName("chaos")
        .setDescription(EN.chaos)
        .setDescriptionLocalizations({ fr: FR.chaos })
        .setMinValue(0)
        .setMaxValue(CHAOS_MAX),
    )
    .addIntegerOption((option) =>
      option
        .setName("stylize")
        .setDescription(EN.stylize)
        .setDescriptionLocalizations({ fr: FR.stylize })
        .setMinValue(0)
        .setMaxValue(STYLIZE_MAX),
    )
    .addStringOption((option) =>
      option
        .setName("camera")
        .setDescription(EN.camera)
        .setDescriptionLocalizations({ fr: FR.camera })
        .setMaxLength(CAMERA_MAX_LENGTH),
    )
    .addStringOption((option) =>
      option
        .setName("avoid")
        .setDescription(EN.avoid)
        .setDescriptionLocalizations({ fr: FR.avoid })
        .setMaxLength(INTERDICTION_MAX_LENGTH),
    )
    .addBooleanOption((option) =>
      option.setName("optimize").setDescription(EN.optimize).setDescriptionLocalizations({ fr: FR.optimize }),
    )
    .addBooleanOption((option) =>
      option.setName("fast").setDescription(EN.fast).setDescriptionLocalizations({ fr: FR.fast }),
    ),
  "generate-advanced": new SlashCommandBuilder()
    .setName("generate-advanced")
    .setDescription(EN.generateAdvanced)
    .setDescriptionLocalizations({ fr: FR.generateAdvanced })
    .setContexts(CONTEXTS)
    .addStringOption((option) =>
      option
        .setName("command")
        .setDescription(EN.command)
        .setDescriptionLocalizations({ fr: FR.command })
        .setRequired(true)
        .setMaxLength(4096),
    )
    .addBooleanOption((option) =>
      option.setName("fast").setDescription(EN.fast).setDescriptionLocalizations({ fr: FR.fast }),
    ),
  imagehub: new SlashCommandBuilder()
    .setName("imagehub")
    .setDescription(EN.imagehub)
    .setDescriptionLocalizations({ fr: FR.imagehub })
    .setContexts(CONTEXTS)
    // Discord hides the command in servers from members without Manage Server; the handler checks again.
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
    .addSubcommand((command) =>
      command
        .setName("connect")
        .setDescription(EN.connect)
        .setDescriptionLocalizations({ fr: FR.connect })
        .addStringOption((option) =>
          option
            .setName("key")
            .setDescription(EN.key)
            .setDescriptionLocalizations({ fr: FR.key })
            .setRequired(true),
        ),
    )
    .addSubcommand((command) =>
      command.setName("status").setDescription(EN.status).setDescriptionLocalizations({ fr: FR.status }),
    )
    .addSubcommand((command) =>
      command.setName("usage").setDescription(EN.usage).setDescriptionLocalizations({ fr: FR.usage }),
    )
    .addSubcommand((command) =>
      command
        .setName("disconnect")
        .setDescription(EN.disconnect)
        .setDescriptionLocalizations({ fr: FR.disconnect }),
    )
    .addSubcommand((command) =>
      command
        .setName("settings")
        .setDescription(EN.settings)
        .setDescriptionLocalizations({ fr: FR.settings })
        .addRoleOption((option) =>
          option.setName("buyers").setDescription(EN.buyers).setDescriptionLocalizations({ fr: FR.buyers }),
        )
        .addIntegerOption((option) =>
          option
            .setName("daily-cap")
            .setDescription(EN.dailyCap)
            .setDescriptionLocalizations({ fr: FR.dailyCap })
            .setMinValue(0)
            .setMaxValue(DAILY_PURCHASE_CAP_MAX),
        )
        .addIntegerOption((option) =>
          option
            .setName("daily-generations")
            .setDescription(EN.dailyGenerations)
            .setDescriptionLocalizations({ fr: FR.dailyGenerations })
            .setMinValue(0)
            .setMaxValue(DAILY_GENERATIONS_MAX),
        )
        .addBooleanOption((option) =>
          option
            .setName("no-buyers-role")
            .setDescription(EN.noBuyersRole)
            .setDescriptionLocalizations({ fr: FR.noBuyersRole }),
        )
        .addBooleanOption((option) =>
          option
            .setName("no-daily-generations")
            .setDescription(EN.noDailyGenerations)
            .setDescriptionLocalizations({ fr: FR.noDailyGenerations }),
        )
        .addBooleanOption((option) =>
          option.setName("no-cap").setDescription(EN.noCap).setDescriptionLocalizations({ fr: FR.noCap }),
        ),
    ),
} as const;

export type CommandName = keyof typeof COMMANDS;

export function commandDefinitions(): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  return Object.values(COMMANDS).map((command) => command.toJSON());
}
