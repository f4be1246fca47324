import { createBotLogger } from "@imagehub/chat-core";
import { startDiscordBot } from "./bot.js";
import { loadDiscordConfig } from "./config.js";

const config = loadDiscordConfig(process.env);
const logger = createBotLogger("imagehub-discord", config.logLevel);
const bot = await startDiscordBot(config, logger);
logger.info(
  { user: bot.client.user?.tag, publicUrl: config.publicUrl, port: bot.port },
  "imagehub Discord bot is online",
);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void bot.stop().then(() => process.exit(0));
  });
}
