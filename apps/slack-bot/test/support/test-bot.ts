import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBotLogger } from "@imagehub/chat-core";
import { freePort } from "../../../../tests/support/start-command.mjs";
import { loadSlackConfig } from "../../src/config.js";
import { type SlackBot, startSlackBot } from "../../src/slack-bot.js";
import type { FakeSlack } from "./fake-slack.js";
import { SlackSender } from "./slack-requests.js";

export const SIGNING_SECRET = "test-signing-secret";
export const BOT_TOKEN = "xoxb-test-token";

export interface TestBot {
  bot: SlackBot;
  url: string;
  sender: SlackSender;
  dataDir: string;
  /** The log lines at level error or above, as pino wrote them. */
  errorLines(): { msg: string; err?: { stack?: string } }[];
  /** Stops the bot; its data directory stays for a restart. */
  stop(): Promise<void>;
  /** Stops it and removes its data. */
  close(): Promise<void>;
}

/**
 * The real bot, from its own configuration parsing, over HTTP on a free port, its Web API client pointed at
 * the fake Slack. `env` adds to or replaces the defaults (a single workspace with BOT_TOKEN, no cooldown).
 */
export async function startTestBot(
  fake: FakeSlack,
  env: Record<string, string | undefined> = {},
): Promise<TestBot> {
  const dataDir = env.BOT_DATA_DIR ?? (await mkdtemp(join(tmpdir(), "imagehub-slack-")));
  const port = env.BOT_PORT ?? String(await freePort());
  const config = loadSlackConfig(
    withoutUndefined({
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_API_URL: fake.apiUrl,
      SLACK_LOG_LEVEL: "error",
      IMAGEHUB_BASE_URL: "http://127.0.0.1:9",
      BOT_PUBLIC_URL: `http://127.0.0.1:${port}`,
      BOT_PORT: port,
      BOT_DATA_DIR: dataDir,
      BOT_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      BOT_USER_COOLDOWN_SECONDS: "0",
      ...env,
    }),
  );
  const lines: { level: number; msg: string }[] = [];
  const logger = createBotLogger("imagehub-slack", "warn", {
    write: (line: string) => {
      lines.push(JSON.parse(line));
    },
  });
  const bot = await startSlackBot(config, logger);
  const url = `http://127.0.0.1:${bot.port}`;
  return {
    bot,
    url,
    sender: new SlackSender(url, config.signingSecret ?? SIGNING_SECRET, fake),
    dataDir,
    errorLines: () => lines.filter((line) => line.level >= 50),
    stop: () => bot.stop(),
    async close() {
      await bot.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function withoutUndefined(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
