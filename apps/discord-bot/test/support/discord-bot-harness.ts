import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBotLogger } from "@imagehub/chat-core";
import { uniqueName } from "../../../../tests/support/environment.js";
import { freePort } from "../../../../tests/support/start-command.mjs";
import { type DiscordBot, startDiscordBot } from "../../src/bot.js";
import { loadDiscordConfig } from "../../src/config.js";
import { FakeDiscord } from "./fake-discord.js";

export interface BotHarness {
  fake: FakeDiscord;
  bot: DiscordBot;
  dataDir: string;
  /** What the bot was started with: a replica starts from the same, on a port of its own. */
  env: NodeJS.ProcessEnv;
  /** Stops the bot and starts it again on the same state, as a deployment would. */
  restart(): Promise<void>;
  /** Stops the bot alone (a deployment's downtime); `start` brings it back on the same state. */
  stopBot(): Promise<void>;
  startBot(): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  isBotPublic?: boolean;
  /** Another bot's fake Discord: replicas share one. */
  fake?: FakeDiscord;
}

/**
 * The real bot against a fake Discord and a real imagehub API, with its own port and its own state: in
 * PostgreSQL (a schema of its own) when env has BOT_DATABASE_URL, else in a JSON file in its own folder.
 */
export async function startBotHarness(
  apiBaseUrl: string,
  env: NodeJS.ProcessEnv = {},
  { isBotPublic = false, fake: sharedFake }: HarnessOptions = {},
): Promise<BotHarness> {
  const fake = sharedFake ?? (await FakeDiscord.start());
  fake.isBotPublic = isBotPublic;
  const dataDir = await mkdtemp(join(tmpdir(), "imagehub-discord-"));
  const port = await freePort();
  const botEnv: NodeJS.ProcessEnv = {
    DISCORD_TOKEN: "test-token",
    DISCORD_APPLICATION_ID: fake.applicationId,
    DISCORD_API_URL: fake.apiUrl,
    IMAGEHUB_BASE_URL: apiBaseUrl,
    BOT_PUBLIC_URL: `http://127.0.0.1:${port}`,
    BOT_PORT: String(port),
    BOT_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    BOT_DATA_DIR: dataDir,
    BOT_DATABASE_SCHEMA: uniqueName("discord_bot"),
    BOT_USER_COOLDOWN_SECONDS: "0",
    BOT_MAX_RUNNING_PER_TEAM: "10",
    ...env,
  };
  const config = loadDiscordConfig(botEnv);
  const logger = createBotLogger("imagehub-discord", "error");
  let isRunning = true;
  const harness: BotHarness = {
    fake,
    dataDir,
    env: botEnv,
    bot: await startDiscordBot(config, logger),
    async stopBot() {
      isRunning = false;
      await harness.bot.stop();
    },
    async startBot() {
      harness.bot = await startDiscordBot(config, logger);
      isRunning = true;
    },
    async restart() {
      await harness.stopBot();
      await harness.startBot();
    },
    async close() {
      if (isRunning) await harness.bot.stop();
      if (!sharedFake) await fake.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}
