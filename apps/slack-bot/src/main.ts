import { loadSlackConfig } from "./config.js";
import { startSlackBot } from "./slack-bot.js";

const config = loadSlackConfig(process.env);
const bot = await startSlackBot(config);
const mode = config.appToken ? "Socket Mode" : "HTTP mode (Slack requests at /slack/events)";
const distribution = config.auth.kind === "oauth" ? "; install at /slack/install" : "";
bot.app.logger.info(`imagehub for Slack: ${mode}, listening on port ${bot.port}${distribution}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    bot.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        bot.app.logger.error("stopping failed:", error);
        process.exit(1);
      },
    );
  });
}
