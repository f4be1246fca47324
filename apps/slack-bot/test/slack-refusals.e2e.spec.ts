import { randomBytes } from "node:crypto";
import type { ImagehubClient } from "@imagehub/client";
import { GenerationStatus } from "@imagehub/domain";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DONE_BUTTONS } from "../../../packages/chat-core/test/support/done-buttons.js";
import { closeServer } from "../../../tests/support/close-server.js";
import { uniqueName } from "../../../tests/support/environment.js";
import { startHttpProxy } from "../../../tests/support/http-proxy.js";
import { RoundRobinProxy } from "../../../tests/support/round-robin-proxy.js";
import { freePort } from "../../../tests/support/start-command.mjs";
import { createTestDatabase } from "../../../tests/support/test-database.js";
import { until } from "../../../tests/support/until.js";
import { BOT_SCOPES } from "../src/slack-scopes.js";
import { type FakeMessage, POST_MESSAGE_BUDGET } from "./support/fake-slack.js";
import { aWorkspace } from "./support/fixtures.js";
import { buttonsOf, generationOf, imagehubAndSlack, imagehubClient, statusesOf } from "./support/imagehub.js";
import { startTestBot, type TestBot } from "./support/test-bot.js";

const TEAM = "T001";
/** Each step as a number (Queued -1, Generating n/4 n, Done 9), for checking a message never went back. */
function stepsOf(message: FakeMessage): number[] {
  return statusesOf(message).map((status) =>
    status === "Done" ? 9 : Number(/(\d)\/4/.exec(status)?.[1] ?? -1),
  );
}

/**
 * The real bot, the real API and worker, and a fake Slack that refuses what Slack refuses: `ratelimited`
 * past a method's tier or a channel's posting budget, channel_not_found for a channel the bot was removed
 * from, restricted_action where a workspace admin keeps apps from posting, message_not_found for a deleted message, invalid_blocks past Block Kit's limits, answers later than
 * 3 s.
 */
describe("the Slack bot against Slack's refusals", () => {
  const { api, fake } = imagehubAndSlack(TEAM);

  /** An imagehub account of its own for each bot (its default key's webhook is the bot's). */
  const anAccount = async () => {
    const { apiKey } = await api().createAccount({ credits: { f_images: 0, f_images_print: 40 } });
    return { apiKey, imagehub: imagehubClient(api(), apiKey) };
  };
  const botEnv = (apiKey: string) => ({
    IMAGEHUB_BASE_URL: api().baseUrl,
    IMAGEHUB_API_KEY: apiKey,
    BOT_DATABASE_URL: api().database.url,
    // A schema of its own: another bot's records are sealed with another key.
    BOT_DATABASE_SCHEMA: uniqueName("slack_bot"),
    BOT_MAX_RUNNING_PER_TEAM: "25",
  });
  /** Every event imagehub failed to deliver has had its last attempt. */
  const hasGivenUp = async (imagehub: ImagehubClient) => {
    const { webhooks } = await imagehub.webhooks.list();
    const { attempts } = await imagehub.webhooks.attempts(webhooks[0]?.id ?? "");
    const failed = new Set(
      attempts.filter((attempt) => attempt.error !== undefined).map((attempt) => attempt.eventId),
    );
    const lastTried = new Set(
      attempts.filter((attempt) => attempt.attempt === 6).map((attempt) => attempt.eventId),
    );
    return failed.size > 0 && [...failed].every((eventId) => lastTried.has(eventId));
  };
  /** The status of the message's generation; undefined until imagehub has created it. */
  const statusOfGeneration = async (imagehub: ImagehubClient, message: FakeMessage) =>
    (await generationOf(imagehub, message).catch(() => undefined))?.status;
  /** The status messages of a channel (each opens with its header), not the notices of their ends. */
  const statusMessagesIn = (channelId: string) =>
    fake()
      .messagesIn(channelId)
      .filter((message) => message.versions[0]?.blocks[0]?.type === "header");
  const messagesAt = async (channelId: string, count: number, step: string) => {
    await until(
      () =>
        statusMessagesIn(channelId).length === count &&
        statusMessagesIn(channelId).every((message) => statusesOf(message).at(-1)?.startsWith(step) === true),
      { what: `${count} messages at "${step}" in ${channelId}` },
    );
    return statusMessagesIn(channelId);
  };
  /** The account's webhook as imagehub sees it: on, and the HTTP status of each delivery attempt. */
  const webhookOf = async (imagehub: ImagehubClient) => {
    const { webhooks } = await imagehub.webhooks.list();
    const [webhook] = webhooks;
    if (!webhook || webhooks.length !== 1) throw new Error(`expected one webhook, found ${webhooks.length}`);
    const { attempts } = await imagehub.webhooks.attempts(webhook.id);
    return { disabled: webhook.disabled, statuses: new Set(attempts.map((attempt) => attempt.statusCode)) };
  };

  describe("one bot", () => {
    let testBot: TestBot;
    let imagehub: ImagehubClient;

    beforeAll(async () => {
      const account = await anAccount();
      imagehub = account.imagehub;
      testBot = await startTestBot(fake(), botEnv(account.apiKey));
    });
    afterAll(() => testBot?.close());

    it("sits out `ratelimited` on chat.postMessage and chat.update: every message ends Done", async () => {
      const workspace = aWorkspace();
      fake().postMessageBudget = { limit: 1, windowMs: 1_000 };
      fake().methodBudgets["chat.update"] = { limit: 1, windowMs: 3_000 };
      try {
        for (const take of [1, 2, 3]) {
          const { response } = await testBot.sender.command(
            workspace,
            "/generate",
            `a harbour, take ${take}`,
          );
          expect(response.status).toBe(200);
        }
        const messages = await messagesAt(workspace.channelId, 3, "Done");
        await testBot.bot.core.updates.settled();

        expect(fake().rateLimitedCalls("chat.postMessage")).toBeGreaterThan(0);
        expect(fake().rateLimitedCalls("chat.update")).toBeGreaterThan(0);
        for (const message of messages) {
          expect(buttonsOf(message).map((button) => button.label)).toEqual(DONE_BUTTONS);
          expect(stepsOf(message)).toEqual([...stepsOf(message)].sort((a, b) => a - b));
        }
        expect(fake().refusedLayouts).toEqual([]);
        expect(fake().lateAcks).toEqual([]);
      } finally {
        fake().postMessageBudget = POST_MESSAGE_BUDGET;
        fake().methodBudgets["chat.update"] = { limit: 50, windowMs: 60_000 };
      }
      // Slack's windows are wall-clock: one update per 3 s for every step of three generations.
    }, 120_000);

    it.each<[string, (message: FakeMessage) => void]>([
      [
        "in a channel the bot was removed from (channel_not_found)",
        (message) => fake().removeBotFrom(message.channel),
      ],
      ["someone deleted (message_not_found)", (message) => fake().deleteMessage(message.channel, message.ts)],
    ])("lets go of a message %s: the delivery succeeds and the webhook stays on", async (_, refuse) => {
      const workspace = aWorkspace();
      await testBot.sender.command(workspace, "/generate", "a lantern in the fog");
      const [message] = (await messagesAt(workspace.channelId, 1, "")) as [FakeMessage];
      refuse(message);
      await until(async () => (await statusOfGeneration(imagehub, message)) === GenerationStatus.Done, {
        what: "the generation to end",
      });
      await testBot.bot.core.updates.settled();

      // One update was refused for good, and the bot tried no other (a `ratelimited` one is tried again).
      const updates = fake()
        .callsOf("chat.update")
        .filter((call) => call.args.ts === message.ts);
      const firstRefused = updates.findIndex(
        (call) => call.error !== undefined && call.error !== "ratelimited",
      );
      expect(firstRefused).toBeGreaterThanOrEqual(0);
      expect(updates.slice(firstRefused)).toHaveLength(1);
      expect(await webhookOf(imagehub)).toEqual({ disabled: false, statuses: new Set([204]) });
    });

    it("keeps a message where apps may no longer post (restricted_action), tells its requester once, and catches up once allowed", async () => {
      const workspace = aWorkspace("U042");
      await testBot.sender.command(workspace, "/generate", "a lantern behind a door");
      const [message] = (await messagesAt(workspace.channelId, 1, "")) as [FakeMessage];
      fake().restrictedChannels.add(workspace.channelId);
      const told = () =>
        fake()
          .directMessagesTo(workspace.userId)
          .filter((direct) => direct.text.includes("I need leave to post in that channel"));
      try {
        await until(async () => (await statusOfGeneration(imagehub, message)) === GenerationStatus.Done, {
          what: "the generation to end",
        });
        await until(() => told().length > 0, { what: "the requester told" });
        expect(statusesOf(message).at(-1)).not.toBe("Done");
      } finally {
        fake().restrictedChannels.delete(workspace.channelId);
      }

      await messagesAt(workspace.channelId, 1, "Done");
      await testBot.bot.core.updates.settled();
      expect(buttonsOf(message).map((button) => button.label)).toEqual(DONE_BUTTONS);
      expect(told()).toHaveLength(1);
      expect(await webhookOf(imagehub)).toEqual({ disabled: false, statuses: new Set([204]) });
    });

    it("keeps the longest prompt within Block Kit's limits, to Done", async () => {
      const workspace = aWorkspace();
      const typed = "<&> *bold* ".repeat(400).slice(0, 4000);
      await testBot.sender.command(workspace, "/generate", typed);
      await until(
        () => fake().messagesIn(workspace.channelId).length > 0 || fake().refusedLayouts.length > 0,
        {
          what: "the status message",
        },
      );
      expect(fake().refusedLayouts).toEqual([]);
      const [message] = (await messagesAt(workspace.channelId, 1, "Done")) as [FakeMessage];
      expect(buttonsOf(message).map((button) => button.label)).toEqual(DONE_BUTTONS);
      expect(fake().refusedLayouts).toEqual([]);
    });

    it("answers a command with many problems in a message Slack takes", async () => {
      const flags = Array.from({ length: 300 }, (_, index) => `--bogus${index} 1`).join(" ");
      const { response } = await testBot.sender.command(aWorkspace(), "/generate", `a castle ${flags}`);
      const answer = (await response.json()) as { text: string };
      expect(answer.text).toMatch(/--bogus0/);
      expect(fake().refusedLayouts).toEqual([]);
    });
  });

  it("tells the installer, then whoever meets it, of a scope the app was installed without (`missing_scope`)", async () => {
    // Installed before the bot needed usergroups:read: the token keeps the scopes it was granted.
    const team = "T0SCOPES";
    const token = "xoxb-installed-before-usergroups";
    fake().addBotToken(
      token,
      team,
      BOT_SCOPES.filter((scope) => scope !== "usergroups:read"),
    );
    fake().addUser({ id: "U0SADMIN", isAdmin: true });
    fake().addUser({ id: "U0SMEMBER" });
    const workspace = { teamId: team, channelId: "C0SCOPES", userId: "U0SREQUESTER" };
    const account = await anAccount();
    const testBot = await startTestBot(fake(), { ...botEnv(account.apiKey), SLACK_BOT_TOKEN: token });
    try {
      expect(testBot.errorLines().map((line) => line.msg)).toContain(
        "imagehub's Slack app lacks the permission `usergroups:read`: a workspace admin adds it (the app's manifest lists it) and reinstalls the app.",
      );
      const settings = await testBot.sender.command(
        { ...workspace, userId: "U0SADMIN" },
        "/imagehub",
        "settings buyers S0DESIGN",
      );
      await until(() => fake().responsesTo(settings.responseUrl).length > 0, { what: "the settings" });
      await testBot.sender.command(workspace, "/generate", "a scope-less lighthouse");
      const [message] = await messagesAt(workspace.channelId, 1, "Done");

      const buy = buttonsOf(message as FakeMessage)[0]?.actionId ?? "";
      const click = await testBot.sender.click(
        { ...workspace, userId: "U0SMEMBER" },
        message as FakeMessage,
        buy,
      );
      await until(() => fake().responsesTo(click.responseUrl).length > 0, { what: "the answer" });
      expect(fake().responsesTo(click.responseUrl)[0]?.body).toMatchObject({
        response_type: "ephemeral",
        text: ":lock: imagehub's Slack app lacks the permission `usergroups:read`: a workspace admin adds it (the app's manifest lists it) and reinstalls the app.",
      });
      expect(fake().callsOf("usergroups.users.list").at(-1)?.error).toBe("missing_scope");
    } finally {
      await testBot.close();
    }
  });

  it("answers Slack within its 3 seconds though imagehub is slow", async () => {
    const slowImagehub = await startHttpProxy(() => Number(new URL(api().baseUrl).port), { delayMs: 400 });
    const { apiKey } = await anAccount();
    const testBot = await startTestBot(fake(), { ...botEnv(apiKey), IMAGEHUB_BASE_URL: slowImagehub.url });
    fake().ackDeadlineMs = 300;
    try {
      const workspace = aWorkspace();
      await testBot.sender.command(workspace, "/generate", "a windmill in the rain");
      const [message] = (await messagesAt(workspace.channelId, 1, "Done")) as [FakeMessage];
      const buy = buttonsOf(message)[0]?.actionId ?? "";
      await testBot.sender.click(workspace, message, buy);
      await until(
        () =>
          fake()
            .callsOf("chat.postEphemeral")
            .some((call) => call.args.channel === message.channel),
        {
          what: "the Buy answer",
        },
      );
      const status = await testBot.sender.command(workspace, "/imagehub", "status");
      await until(() => fake().responsesTo(status.responseUrl).length > 0, { what: "the status answer" });

      expect(fake().lateAcks).toEqual([]);
    } finally {
      fake().ackDeadlineMs = 3_000;
      await testBot.close();
      await closeServer(slowImagehub.server);
    }
  });

  it("refuses to start on records sealed with another key, naming it, and lets go of its connections", async () => {
    const database = await createTestDatabase({ migrated: false });
    try {
      const { apiKey } = await anAccount();
      const env = { ...botEnv(apiKey), BOT_DATABASE_URL: database.url };
      await (await startTestBot(fake(), env)).close();

      const rekeyed = startTestBot(fake(), {
        ...env,
        BOT_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      });

      await expect(rekeyed).rejects.toThrow(/BOT_ENCRYPTION_KEY/);
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      const { rows } = await admin.query<{ open: number }>(
        "SELECT count(*)::int AS open FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'imagehub-slack-bot'",
      );
      await admin.end();
      expect(rows[0]?.open).toBe(0);
    } finally {
      await database.drop();
    }
  });

  it("brings a message to Done after a restart mid-generation, never moving it backwards", async () => {
    const port = String(await freePort());
    const { apiKey, imagehub } = await anAccount();
    const env = {
      ...botEnv(apiKey),
      BOT_PORT: port,
      BOT_PUBLIC_URL: `http://127.0.0.1:${port}`,
      BOT_DATABASE_SCHEMA: uniqueName("slack_restart"),
      BOT_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    };
    const workspace = aWorkspace();
    const first = await startTestBot(fake(), env);
    await first.sender.command(workspace, "/generate", "a slow tide");
    const [message] = (await messagesAt(workspace.channelId, 1, "Generating")) as [FakeMessage];
    await first.stop();
    // imagehub's deliveries fail while the bot is down.
    await until(async () => (await statusOfGeneration(imagehub, message)) === GenerationStatus.Done, {
      what: "the generation to end while the bot is down",
    });
    // imagehub gives up on what it could not deliver (6 attempts on the test schedule): only the bot's own
    // start can bring the message up to date.
    await until(() => hasGivenUp(imagehub), { what: "imagehub to give up its deliveries" });

    const second = await startTestBot(fake(), { ...env, BOT_DATA_DIR: first.dataDir });
    try {
      await messagesAt(workspace.channelId, 1, "Done");
      expect(stepsOf(message)).toEqual([...stepsOf(message)].sort((a, b) => a - b));
      expect(buttonsOf(message).map((button) => button.label)).toEqual(DONE_BUTTONS);
      // Refused while the bot was down (no answer), never Gone.
      const { disabled, statuses } = await webhookOf(imagehub);
      expect(disabled).toBe(false);
      expect(statuses.has(410)).toBe(false);
    } finally {
      await second.close();
    }
  });

  describe("two replicas behind one address, sharing their state in PostgreSQL", () => {
    const balancer = new RoundRobinProxy();
    let replicas: TestBot[];
    let imagehub: ImagehubClient;

    beforeAll(async () => {
      await balancer.start();
      const account = await anAccount();
      imagehub = account.imagehub;
      const shared = {
        ...botEnv(account.apiKey),
        BOT_PUBLIC_URL: balancer.url,
        BOT_DATABASE_SCHEMA: uniqueName("slack_replicas"),
        BOT_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      };
      replicas = [await startTestBot(fake(), shared), await startTestBot(fake(), shared)];
      balancer.backends = replicas.map((replica) => replica.url);
    });
    afterAll(async () => {
      for (const replica of replicas ?? []) await replica.close();
      await balancer.stop();
    });

    it("shows every step once and in order, whichever replica received it, and no delivery is refused", async () => {
      const workspace = aWorkspace();
      const [one] = replicas as [TestBot];
      await one.sender.command(workspace, "/generate", "a lighthouse at night");
      const [message] = (await messagesAt(workspace.channelId, 1, "Done")) as [FakeMessage];

      const deliveries = balancer.requests.filter((request) =>
        request.path.startsWith("/imagehub/webhooks/"),
      );
      expect(new Set(deliveries.map((delivery) => delivery.backend))).toEqual(new Set([0, 1]));
      const statuses = statusesOf(message);
      expect(new Set(statuses).size).toBe(statuses.length);
      expect(stepsOf(message)).toEqual([...stepsOf(message)].sort((a, b) => a - b));
      expect(await webhookOf(imagehub)).toEqual({ disabled: false, statuses: new Set([204]) });
    });
  });
});
