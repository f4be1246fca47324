import { startDiscordBot } from "./bot.js";
import { loadDiscordConfig } from "./config.js";

const config = loadDiscordConfig(process.env);
const bot = await startDiscordBot(config);
console.log(
  `imagehub Discord bot is online as ${bot.client.user?.tag ?? "?"}; imagehub reaches it at ${config.publicUrl} (port ${bot.port})`,
);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void bot.stop().then(() => process.exit(0));
  });
}
