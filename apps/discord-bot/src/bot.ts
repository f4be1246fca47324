import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type ChatCore,
  composeGrid,
  DEFAULT_LOCALE,
  fetchPreviews,
  generationView,
  type Logger,
  messagesFor,
  openChatCore,
} from "@imagehub/chat-core";
import { Client, Events, GatewayIntentBits } from "discord.js";
import type { DiscordBotConfig } from "./config.js";
import { handleInteraction } from "./interactions.js";
import { endNotice, goneNotice, permissionNotice, statusMessage } from "./messages.js";
import { StatusMessages } from "./status-messages.js";

export interface DiscordBot {
  client: Client;
  core: ChatCore;
  /** Where the webhook receiver listens. */
  port: number;
  stop(): Promise<void>;
}

/**
 * The bot: a discord.js client on the gateway for interactions, and an HTTP server on which imagehub's
 * webhook events arrive and turn into edits of the status messages.
 */
export async function startDiscordBot(config: DiscordBotConfig, logger: Logger): Promise<DiscordBot> {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds],
    ...(config.discord.apiUrl && { rest: { api: config.discord.apiUrl } }),
  });
  const messages = new StatusMessages(client.rest);
  const core: ChatCore = await openChatCore(
    "discord",
    config,
    {
      showGeneration: async (target, generation, form) => {
        const view = generationView(generation, target.locale);
        // The grid grows with the images drawn so far; a failed generation shows none.
        const grid =
          view.images.length > 0 && view.phase !== "failed" && form !== "links"
            ? await composeGrid(await fetchPreviews(await core.connections.clientFor(target.teamId), view))
            : undefined;
        await messages.edit(target.channelId, target.messageId, statusMessage(view, grid), view.locale);
      },
      announceEnd: (target, generation) =>
        messages.post(
          target.channelId,
          endNotice(generationView(generation, target.locale), target),
          target.locale ?? DEFAULT_LOCALE,
        ),
      tellRequester: (target, generation, reason) =>
        messages.sendDirect(
          target.userId,
          goneNotice(generationView(generation, target.locale), target, reason),
        ),
      tellPermissionMissing: (target, generation, missing) =>
        messages.sendDirect(
          target.userId,
          permissionNotice(generationView(generation, target.locale), target, missing),
        ),
      groupLabel: (roleId, locale) => messagesFor(locale).discord.roleMembers(`<@&${roleId}>`),
    },
    logger,
  );
  client.on(Events.InteractionCreate, (interaction) => void handleInteraction(interaction, core, logger));
  client.on(Events.Error, (error) => logger.error({ err: error }, "discord client error"));

  const server = createServer(core.receiver.listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, resolve);
  });
  try {
    const ready = once(client, Events.ClientReady);
    await client.login(config.discord.token);
    await ready;
    await keepDefaultKeyPrivate(client, core, logger);
    await core.start();
  } catch (error) {
    await closeServer(server);
    await client.destroy();
    await core.stop();
    throw error;
  }
  return {
    client,
    core,
    port: (server.address() as AddressInfo).port,
    stop: async () => {
      await closeServer(server);
      await core.stop();
      await client.destroy();
    },
  };
}

/**
 * A public bot (anyone may invite it, the portal's "Public Bot") would lend the operator's key to any
 * server: then the default key serves none.
 */
async function keepDefaultKeyPrivate(client: Client, core: ChatCore, logger: Logger): Promise<void> {
  if (!core.connections.hasDefaultKey) return;
  const application = await client.application?.fetch();
  if (application?.botPublic !== false) {
    core.connections.turnOffDefaultKey();
    logger.warn("the bot is public (anyone may invite it): IMAGEHUB_API_KEY serves no server");
  }
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
