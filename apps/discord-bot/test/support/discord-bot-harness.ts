import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBotLogger } from "@imagehub/chat-core";
import { freePort } from "../../../../tests/support/start-command.mjs";
import { type DiscordBot, startDiscordBot } from "../../src/bot.js";
import { loadDiscordConfig } from "../../src/config.js";
import { FakeDiscord } from "./fake-discord.js";

export interface BotHarness {
  fake: FakeDiscord;
  bot: DiscordBot;
  dataDir: string;
  /** Stops the bot and starts it again on the same state, as a deployment would. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** The real bot against a fake Discord and a real imagehub API, with its own state folder and port. */
export async function startBotHarness(
  apiBaseUrl: string,
  env: NodeJS.ProcessEnv = {},
  { isBotPublic = false } = {},
): Promise<BotHarness> {
  const fake = await FakeDiscord.start();
  fake.isBotPublic = isBotPublic;
  const dataDir = await mkdtemp(join(tmpdir(), "imagehub-discord-"));
  const port = await freePort();
  const config = loadDiscordConfig({
    DISCORD_TOKEN: "test-token",
    DISCORD_APPLICATION_ID: fake.applicationId,
    DISCORD_API_URL: fake.apiUrl,
    IMAGEHUB_BASE_URL: apiBaseUrl,
    BOT_PUBLIC_URL: `http://127.0.0.1:${port}`,
    BOT_PORT: String(port),
    BOT_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    BOT_DATA_DIR: dataDir,
    BOT_USER_COOLDOWN_SECONDS: "0",
    BOT_MAX_RUNNING_PER_TEAM: "10",
    ...env,
  });
  const logger = createBotLogger("imagehub-discord", "error");
  const harness: BotHarness = {
    fake,
    dataDir,
    bot: await startDiscordBot(config, logger),
    async restart() {
      await harness.bot.stop();
      harness.bot = await startDiscordBot(config, logger);
    },
    async close() {
      await harness.bot.stop();
      await fake.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}
