import { createBotLogger } from "@imagehub/chat-core";
import { loadSlackConfig } from "./config.js";
import { startSlackBot } from "./slack-bot.js";

const config = loadSlackConfig(process.env);
const logger = createBotLogger("imagehub-slack", config.chat.logLevel);
const bot = await startSlackBot(config, logger);
const mode = config.appToken ? "Socket Mode" : "HTTP mode (Slack requests at /slack/events)";
const distribution = config.auth.kind === "oauth" ? "; install at /slack/install" : "";
logger.info({ port: bot.port }, `imagehub for Slack: ${mode}${distribution}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    bot.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "stopping failed");
        process.exit(1);
      },
    );
  });
}
