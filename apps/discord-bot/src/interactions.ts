import {
  type Buyer,
  type ChatAction,
  type ChatCore,
  decodeAction,
  describeFailure,
  fetchPreviews,
  type GenerateOptions,
  generationView,
  type Locale,
  type Logger,
  localeOf,
  messagesFor,
  NotConnectedError,
  type StartOutcome,
  type StartPlace,
  toCreateRequest,
} from "@imagehub/chat-core";
import { ApiError } from "@imagehub/client";
import {
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  MessageFlags,
  PermissionFlagsBits,
  type RepliableInteraction,
} from "discord.js";
import { CHANNEL_PERMISSIONS, type ChannelPermission, permissionNames } from "./channel-permissions.js";
import type { CommandName } from "./commands.js";
import { teamOf } from "./direct-messages.js";
import {
  buyAnswer,
  previewFiles,
  problemsAnswer,
  settingsAnswer,
  statusAnswer,
  statusMessage,
  upscaledMessage,
  usageAnswer,
} from "./messages.js";

type CommandHandler = (interaction: ChatInputCommandInteraction, core: ChatCore) => Promise<void>;

/**
 * The one entry point of every interaction: routes it to its handler, and turns any failure into a
 * private answer to whoever acted (an imagehub refusal in its own words, anything else logged).
 */
export async function handleInteraction(
  interaction: Interaction,
  core: ChatCore,
  logger: Logger,
): Promise<void> {
  if (!interaction.isRepliable()) return;
  const messages = messagesFor(languageOf(interaction));
  try {
    // Every replica's gateway session receives the interaction: the first to claim it answers.
    if (!(await core.claims.claim(`interaction:${interaction.id}`))) return;
    if (interaction.isChatInputCommand()) {
      await COMMAND_HANDLERS[interaction.commandName as CommandName]?.(interaction, core);
    } else if (interaction.isButton()) {
      await handleButton(interaction, core);
    }
  } catch (error) {
    const problem =
      error instanceof NotConnectedError && !interaction.inGuild()
        ? messages.discord.connectInDirectMessages
        : describeFailure(error, languageOf(interaction));
    if (problem === undefined)
      logger.error({ err: error, interactionId: interaction.id }, "interaction failed");
    await answerPrivately(interaction, problem ?? messages.failures.ourFault).catch((answerError: unknown) =>
      logger.error({ err: answerError, interactionId: interaction.id }, "could not answer the interaction"),
    );
  }
}

/**
 * The language the bot answers a person in: theirs (Discord sends its client's), else their server's, else
 * English.
 */
function languageOf(interaction: Interaction): Locale {
  return localeOf(interaction.locale, interaction.guildLocale);
}

const COMMAND_HANDLERS: Record<CommandName, CommandHandler> = {
  generate: (interaction, core) => generate(interaction, core, simpleOptions(interaction)),
  "generate-advanced": (interaction, core) =>
    generate(interaction, core, {
      mode: "advanced",
      command: interaction.options.getString("command", true),
      fast: interaction.options.getBoolean("fast") ?? undefined,
    }),
  imagehub: async (interaction, core) => {
    const subcommand = interaction.options.getSubcommand(true);
    if (subcommand === "status") return showStatus(interaction, core);
    if (subcommand === "usage") return showUsage(interaction, core);
    const { discord } = messagesFor(languageOf(interaction));
    if (!interaction.inGuild()) {
      // In direct messages the key is the person's own: theirs to connect, with no settings to share.
      if (subcommand === "settings") return answerPrivately(interaction, discord.settingsInDirectMessages);
    } else if (!interaction.memberPermissions.has(PermissionFlagsBits.ManageGuild)) {
      return answerPrivately(
        interaction,
        subcommand === "settings" ? discord.settingsNeedManageServer : discord.connectNeedsManageServer,
      );
    }
    if (subcommand === "settings") return changeSettings(interaction, core);
    return subcommand === "connect" ? connect(interaction, core) : disconnect(interaction, core);
  },
};

function simpleOptions(interaction: ChatInputCommandInteraction): GenerateOptions {
  const { options } = interaction;
  const text = (name: string) => options.getString(name) ?? undefined;
  return {
    mode: "simple",
    prompt: options.getString("prompt", true),
    format: text("format"),
    weather: text("weather"),
    time: text("time"),
    template: text("template"),
    chaos: options.getInteger("chaos") ?? undefined,
    stylize: options.getInteger("stylize") ?? undefined,
    camera: text("camera"),
    avoid: text("avoid"),
    optimize: options.getBoolean("optimize") ?? undefined,
    fast: options.getBoolean("fast") ?? undefined,
  };
}

/** `/generate`: options the API refuses are told at once, before anything is deferred or created. */
async function generate(
  interaction: ChatInputCommandInteraction,
  core: ChatCore,
  options: GenerateOptions,
): Promise<void> {
  const locale = languageOf(interaction);
  const checked = toCreateRequest(options);
  if (!checked.ok) return answerPrivately(interaction, problemsAnswer(checked.problems, locale));
  if (!interaction.inGuild() && !(await core.connections.isConnected(teamOf(interaction)))) {
    return answerPrivately(interaction, messagesFor(locale).discord.connectInDirectMessages);
  }
  await startInAnswer(interaction, (place) => core.generations.start({ ...place, options }));
}

/**
 * Defers at once (a public "thinking" answer) and makes the answer the status message of the generation
 * `start` creates, in the person's language: Discord drops an interaction not answered within 3 seconds, and
 * checking the team's limits and creating the generation call imagehub. A refusal is told to the person alone.
 */
async function startInAnswer(
  interaction: ChatInputCommandInteraction | ButtonInteraction,
  start: (place: StartPlace) => Promise<StartOutcome>,
): Promise<void> {
  const locale = languageOf(interaction);
  const missing = interaction.appPermissions.missing([...CHANNEL_PERMISSIONS]) as ChannelPermission[];
  if (missing.length > 0) {
    return answerPrivately(
      interaction,
      `⚠️ ${messagesFor(locale).discord.cannotShowHere(permissionNames(missing, locale))}`,
    );
  }
  await interaction.deferReply();
  let isAnswerShown = true;
  const outcome = await start({
    teamId: teamOf(interaction),
    channelId: interaction.channelId,
    userId: interaction.user.id,
    locale,
    postStatus: async (view) => {
      const { files, allowed_mentions, ...message } = statusMessage(view);
      const reply = await interaction.editReply({ ...message, allowedMentions: allowed_mentions });
      return { channelId: interaction.channelId, messageId: reply.id };
    },
    withdrawStatus: async () => {
      await interaction.deleteReply();
      isAnswerShown = false;
    },
  });
  if (outcome.kind === "refused") {
    // The deferred answer is public: it goes, and the reasons are told to the person alone.
    if (isAnswerShown) await interaction.deleteReply();
    await interaction.followUp({
      content: problemsAnswer(outcome.problems, locale),
      flags: MessageFlags.Ephemeral,
    });
  }
}

type ButtonHandler<K extends ChatAction["kind"]> = (
  interaction: ButtonInteraction,
  core: ChatCore,
  action: Extract<ChatAction, { kind: K }>,
) => Promise<void>;

const BUTTON_HANDLERS: { [K in ChatAction["kind"]]: ButtonHandler<K> } = {
  /** Told to the clicker alone: the links, or why this person may not buy. */
  buy: async (interaction, core, action) => {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const outcome = await core.purchases.buy(teamOf(interaction), buyerOf(interaction), action);
    await interaction.editReply(buyAnswer(outcome, languageOf(interaction)));
  },
  /**
   * U n: bought as Buy n; the links (or why not) to the clicker alone, then the clean image in full size in
   * the channel.
   */
  upscale: async (interaction, core, action) => {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const locale = languageOf(interaction);
    const outcome = await core.purchases.upscale(teamOf(interaction), buyerOf(interaction), action);
    await interaction.editReply(buyAnswer(outcome, locale));
    if (outcome.kind === "bought") {
      await interaction.followUp(upscaledMessage(outcome.fullSize, interaction.user.id, locale));
    }
  },
  retry: async (interaction, core, action) => {
    await interaction.deferUpdate();
    const locale = languageOf(interaction);
    const outcome = await core.generations.retry(
      { teamId: teamOf(interaction), userId: interaction.user.id, locale },
      action.generationId,
    );
    if (outcome.kind === "refused") {
      await interaction.followUp({
        content: problemsAnswer(outcome.problems, locale),
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    // Through the receiver, so that the answer and the new attempt's events show in order.
    await core.receiver.show(teamOf(interaction), outcome.generation);
  },
  /** A new status message, answering the click, for the same request with a new seed. */
  again: (interaction, core, action) =>
    startInAnswer(interaction, (place) => core.generations.again(place, action.generationId)),
  /** V n: a new status message, answering the click, for a new generation varying image n. */
  vary: (interaction, core, action) =>
    startInAnswer(interaction, (place) =>
      core.generations.vary(place, action.generationId, action.imageNumber),
    ),
  /** The 4 previews, each its own file, to the clicker alone, in their language. */
  show: async (interaction, core, action) => {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const view = generationView(
      await core.generations.read(teamOf(interaction), action.generationId),
      languageOf(interaction),
    );
    const client = await core.connections.clientFor(teamOf(interaction));
    const files = previewFiles(view, await fetchPreviews(client, view));
    await interaction.editReply({
      content: messagesFor(view.locale).purchases.eachOnItsOwn(files.length),
      files: files.map(({ name, data, description }) => ({ name, attachment: data, description })),
    });
  },
};

/** Who clicked, as the team's purchase rules ask: an admin (Manage Server), a member of a role. */
function buyerOf(interaction: ButtonInteraction): Buyer {
  const userId = interaction.user.id;
  const locale = languageOf(interaction);
  // In direct messages the key, and so the purchase, is the clicker's own.
  if (!interaction.inGuild()) {
    return { userId, locale, isAdmin: async () => true, isInGroup: async () => false };
  }
  const roles = interaction.member.roles;
  return {
    userId,
    locale,
    isAdmin: async () => interaction.memberPermissions.has(PermissionFlagsBits.ManageGuild),
    isInGroup: async (roleId) => (Array.isArray(roles) ? roles.includes(roleId) : roles.cache.has(roleId)),
  };
}

async function handleButton(interaction: ButtonInteraction, core: ChatCore): Promise<void> {
  const action = decodeAction(interaction.customId);
  if (!action) return;
  await (BUTTON_HANDLERS[action.kind] as ButtonHandler<typeof action.kind>)(interaction, core, action);
}

/** `/imagehub settings`: who may buy and the daily cap, changed by the options given, then shown. */
async function changeSettings(interaction: ChatInputCommandInteraction, core: ChatCore): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const { options } = interaction;
  const role = options.getRole("buyers");
  const cap = options.getInteger("daily-cap");
  const quota = options.getInteger("daily-generations");
  const change = {
    ...(role && { buyersGroupId: role.id }),
    ...(options.getBoolean("no-buyers-role") && { buyersGroupId: null }),
    ...(cap !== null && { dailyPurchaseCap: cap }),
    ...(options.getBoolean("no-cap") && { dailyPurchaseCap: null }),
    ...(quota !== null && { dailyGenerationsPerPerson: quota }),
    ...(options.getBoolean("no-daily-generations") && { dailyGenerationsPerPerson: null }),
  };
  const isChanged = Object.keys(change).length > 0;
  const settings = isChanged
    ? await core.settings.change(teamOf(interaction), change, interaction.user.id)
    : await core.settings.get(teamOf(interaction));
  await interaction.editReply(settingsAnswer(settings, isChanged, languageOf(interaction)));
}

async function connect(interaction: ChatInputCommandInteraction, core: ChatCore): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const { discord } = messagesFor(languageOf(interaction));
  try {
    const account = await core.connections.connect(
      teamOf(interaction),
      interaction.options.getString("key", true).trim(),
      interaction.user.id,
    );
    await interaction.editReply(discord.connected(account.email, !interaction.inGuild()));
  } catch (error) {
    if (!(error instanceof ApiError && error.statusCode === 401)) throw error;
    await interaction.editReply(discord.keyRefused);
  }
}

async function showStatus(interaction: ChatInputCommandInteraction, core: ChatCore): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const client = await core.connections.clientFor(teamOf(interaction));
  const [account, credits] = await Promise.all([client.keys.check(), client.credits.get()]);
  await interaction.editReply(
    statusAnswer(
      account,
      credits,
      await core.connections.isConnected(teamOf(interaction)),
      languageOf(interaction),
    ),
  );
}

/** `/imagehub usage`: what the person has used of the team's limits, to them alone. */
async function showUsage(interaction: ChatInputCommandInteraction, core: ChatCore): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  await interaction.editReply(
    usageAnswer(
      await core.generations.usageOf(teamOf(interaction), interaction.user.id),
      languageOf(interaction),
    ),
  );
}

async function disconnect(interaction: ChatInputCommandInteraction, core: ChatCore): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const removed = await core.connections.disconnect(teamOf(interaction));
  const { discord } = messagesFor(languageOf(interaction));
  const isDirect = !interaction.inGuild();
  await interaction.editReply(removed ? discord.disconnected(isDirect) : discord.hadNoKey(isDirect));
}

async function answerPrivately(interaction: RepliableInteraction, content: string): Promise<void> {
  if (interaction.deferred && !interaction.replied) {
    await interaction.editReply(content);
  } else if (interaction.replied) {
    await interaction.followUp({ content, flags: MessageFlags.Ephemeral });
  } else {
    await interaction.reply({ content, flags: MessageFlags.Ephemeral });
  }
}
