import { randomBytes } from "node:crypto";
import { type BotHarness, startBotHarness } from "../../apps/discord-bot/test/support/discord-bot-harness.js";
import type { FakeDiscord } from "../../apps/discord-bot/test/support/fake-discord.js";
import { FakeSlack } from "../../apps/slack-bot/test/support/fake-slack.js";
import { BOT_TOKEN, startTestBot, type TestBot } from "../../apps/slack-bot/test/support/test-bot.js";
import { uniqueName } from "../../tests/support/environment.js";
import { RoundRobinProxy } from "../../tests/support/round-robin-proxy.js";

/** Two replicas of a bot behind one address (imagehub's deliveries go to each in turn), one state in PostgreSQL. */
interface Replicas<Fake, Replica> {
  fake: Fake;
  replicas: [Replica, Replica];
  close(): Promise<void>;
}

/** What both replicas of a bot start with: one PostgreSQL schema, one sealing key, the balancer's address. */
function sharedEnv(platform: string, databaseUrl: string, balancer: RoundRobinProxy) {
  return {
    BOT_DATABASE_URL: databaseUrl,
    BOT_DATABASE_SCHEMA: uniqueName(`soak_${platform}`),
    BOT_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    BOT_PUBLIC_URL: balancer.url,
  };
}

/** Two Discord bots on one fake Discord: both gateway sessions receive every interaction. */
export async function startDiscordReplicas(
  apiBaseUrl: string,
  databaseUrl: string,
  env: Record<string, string>,
): Promise<Replicas<FakeDiscord, BotHarness>> {
  const balancer = await new RoundRobinProxy().start();
  const shared = { ...sharedEnv("discord", databaseUrl, balancer), ...env };
  const first = await startBotHarness(apiBaseUrl, shared);
  const second = await startBotHarness(apiBaseUrl, shared, { fake: first.fake });
  balancer.backends = [first, second].map((replica) => `http://127.0.0.1:${replica.bot.port}`);
  return {
    fake: first.fake,
    replicas: [first, second],
    async close() {
      // The first one's close closes the fake they share.
      await second.close();
      await first.close();
      await balancer.stop();
    },
  };
}

/** Two Slack bots of one workspace (`teamId`) on one fake Slack; each has its own sender of Slack's requests. */
export async function startSlackReplicas(
  apiBaseUrl: string,
  databaseUrl: string,
  teamId: string,
  env: Record<string, string>,
): Promise<Replicas<FakeSlack, TestBot>> {
  const fake = await FakeSlack.start();
  fake.addBotToken(BOT_TOKEN, teamId);
  const balancer = await new RoundRobinProxy().start();
  const shared = {
    IMAGEHUB_BASE_URL: apiBaseUrl,
    ...sharedEnv("slack", databaseUrl, balancer),
    ...env,
  };
  const replicas: [TestBot, TestBot] = [await startTestBot(fake, shared), await startTestBot(fake, shared)];
  balancer.backends = replicas.map((replica) => replica.url);
  return {
    fake,
    replicas,
    async close() {
      for (const replica of replicas) await replica.close();
      await fake.close();
      await balancer.stop();
    },
  };
}
