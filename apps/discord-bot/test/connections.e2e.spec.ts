import { execFile } from "node:child_process";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { type BotHarness, startBotHarness } from "./support/discord-bot-harness.js";
import {
  ADMIN,
  WEBHOOKS_AT_ONCE as API_ENV,
  answerWithText,
  forgedDelivery,
  MEMBER,
  STRING,
  SUBCOMMAND,
} from "./support/fixtures.js";

/** The bot connecting a server to imagehub, its default key, and its commands' registration. */
describe("the Discord bot's connections", () => {
  let api: TestApi;
  let harness: BotHarness;
  let apiKey: string;

  const connect = (key: string, member = ADMIN) =>
    harness.fake.runCommand(
      "imagehub",
      [{ name: "connect", type: SUBCOMMAND, options: [{ name: "key", type: STRING, value: key }] }],
      member,
    );
  const answerText = async (interactionId: string) =>
    (await answerWithText(harness.fake, interactionId)).content;

  beforeAll(async () => {
    api = await startTestApi({ env: API_ENV });
    ({ apiKey } = await api.createAccount({ credits: { f_images: 10, f_images_print: 20 } }));
    harness = await startBotHarness(api.baseUrl, { BOT_DATABASE_URL: api.database.url });
  });

  afterAll(async () => {
    await harness?.close();
    await api?.close();
  });

  it("asks to connect first when the server has no key", async () => {
    const interaction = harness.fake.runCommand(
      "generate",
      [{ name: "prompt", type: STRING, value: "a lake" }],
      ADMIN,
    );
    expect(await answerText(interaction)).toMatch(/not connected to imagehub yet.*\/imagehub connect/);
    expect(harness.fake.lastAnswerTo(interaction)?.flags).toBe(64);
  });

  it("refuses to connect a member without Manage Server, and a key imagehub refuses", async () => {
    expect(await answerText(connect(apiKey, MEMBER))).toMatch(/Manage Server/);
    expect(await answerText(connect("ih_not-a-real-key"))).toMatch(/refused that API key/);
    expect(await harness.bot.core.connections.isConnected(harness.fake.guildId)).toBe(false);
  });

  it("connects with a key: checked, stored encrypted, and the bot's webhook subscribed", async () => {
    expect(await answerText(connect(apiKey))).toMatch(
      /Connected to the imagehub account of user1@example\.test/,
    );
    const { webhooks } = await readJson(await api.request("/v1/api-keys/webhooks", { apiKey }));
    expect(webhooks).toHaveLength(1);
    expect(webhooks[0].url).toBe(harness.bot.core.connections.webhookUrl(harness.fake.guildId));
    const database = new pg.Client({ connectionString: api.database.url });
    await database.connect();
    const { rows } = await database.query(
      `SELECT key, value::text AS value FROM ${harness.env.BOT_DATABASE_SCHEMA}.bot_records WHERE collection = 'teams'`,
    );
    await database.end();
    expect(rows.map((row) => row.key)).toEqual([harness.fake.guildId]);
    expect(rows[0].value).not.toContain(apiKey);
  });

  it("shows the account and its credits", async () => {
    const interaction = harness.fake.runCommand("imagehub", [{ name: "status", type: SUBCOMMAND }], MEMBER);
    const answer = await answerText(interaction);
    expect(answer).toMatch(/user1@example\.test \(this server's key/);
    expect(answer).toMatch(/f_images: 10 of 10/);
  });

  it("refuses invalid options privately, naming the problem, and creates nothing", async () => {
    const advanced = harness.fake.runCommand(
      "generate-advanced",
      [{ name: "command", type: STRING, value: "a castle --ar 16:9 --bogus 3" }],
      ADMIN,
    );
    expect(await answerText(advanced)).toMatch(/command: .*--bogus/);
    const flagsInSimple = harness.fake.runCommand(
      "generate",
      [{ name: "prompt", type: STRING, value: "a castle --ar 16:9" }],
      ADMIN,
    );
    expect(await answerText(flagsInSimple)).toMatch(/prompt: .*--ar/);
    expect(harness.fake.answerTo(flagsInSimple)?.flags).toBe(64);
    const { filteredResults } = await readJson(await api.request("/v1/image-generations", { apiKey }));
    expect(filteredResults).toBe(0);
  });

  it("turns its team's webhook on again when it starts", async () => {
    const database = new pg.Client({ connectionString: api.database.url });
    await database.connect();
    await database.query("UPDATE webhooks SET disabled_at = now(), disabled_reason = 'the bot was down'");
    await database.end();

    await harness.restart();

    const { webhooks } = await readJson(await api.request("/v1/api-keys/webhooks", { apiKey }));
    expect(webhooks.map((webhook: { disabled: boolean }) => webhook.disabled)).toEqual([false]);
  });

  it("disconnects: the key and its webhook are removed", async () => {
    const interaction = harness.fake.runCommand(
      "imagehub",
      [{ name: "disconnect", type: SUBCOMMAND }],
      ADMIN,
    );
    expect(await answerText(interaction)).toMatch(/^Disconnected/);
    const { webhooks } = await readJson(await api.request("/v1/api-keys/webhooks", { apiKey }));
    expect(webhooks).toHaveLength(0);
    expect(await harness.bot.core.connections.isConnected(harness.fake.guildId)).toBe(false);
  });
  it("tells imagehub a removed connection's webhook address is gone (410)", async () => {
    const response = await forgedDelivery(harness.bot.core.connections.webhookUrl(harness.fake.guildId));
    expect(response.status).toBe(410);
  });

  describe("the operator's default key", () => {
    const refusalOf = async (bot: BotHarness) => {
      const interaction = bot.fake.runCommand(
        "generate",
        [{ name: "prompt", type: STRING, value: "a dune" }],
        ADMIN,
      );
      await until(() => (bot.fake.lastAnswerTo(interaction)?.content ?? "") !== "", { what: "the answer" });
      return bot.fake.lastAnswerTo(interaction)?.content;
    };

    it("serves no server the operator did not opt in", async () => {
      const notOptedIn = await startBotHarness(api.baseUrl, { IMAGEHUB_API_KEY: apiKey });
      try {
        expect(await refusalOf(notOptedIn)).toMatch(/not connected to imagehub yet/);
      } finally {
        await notOptedIn.close();
      }
    });

    it("serves no server at all when anyone may invite the bot (Public Bot)", async () => {
      const publicBot = await startBotHarness(
        api.baseUrl,
        { IMAGEHUB_API_KEY: apiKey, BOT_DEFAULT_KEY_TEAMS: "900000000000000010" },
        { isBotPublic: true },
      );
      try {
        expect(await refusalOf(publicBot)).toMatch(/not connected to imagehub yet/);
      } finally {
        await publicBot.close();
      }
    });
  });

  it("registers its commands with npm run discord:register", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["apps/discord-bot/dist/register.js"], {
      env: {
        ...process.env,
        DISCORD_TOKEN: "test-token",
        DISCORD_APPLICATION_ID: harness.fake.applicationId,
        DISCORD_GUILD_ID: harness.fake.guildId,
        DISCORD_API_URL: harness.fake.apiUrl,
      },
    });
    expect(stdout).toMatch(/registered \/generate, \/generate-advanced, \/imagehub in server/);
    const registered = harness.fake.registeredCommands.get(harness.fake.guildId) as {
      name: string;
      options: { name: string; type: number }[];
    }[];
    expect(registered.map((command) => command.name)).toEqual(["generate", "generate-advanced", "imagehub"]);
    expect(registered[0]?.options.map((option) => option.name)).toEqual([
      "prompt",
      "format",
      "weather",
      "time",
      "template",
      "chaos",
      "stylize",
      "camera",
      "avoid",
      "optimize",
      "fast",
    ]);
  });
});
