import { GenerationStatus } from "@imagehub/domain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DONE_BUTTONS } from "../../../packages/chat-core/test/support/done-buttons.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { statusMessage } from "../src/messages.js";
import { type BotHarness, startBotHarness } from "./support/discord-bot-harness.js";
import { DISCORD_LIMITS, formBodyErrors } from "./support/discord-form-body.js";
import type { ChannelRefusal, FakeMessage } from "./support/fake-discord.js";
import { ADMIN, buttonsOf, STRING, statusOf, stepsOf } from "./support/fixtures.js";

/**
 * The real bot, its state in PostgreSQL, the real API and worker, and a fake Discord that refuses what
 * Discord refuses: 429s past a bucket's or the global budget, 50001/50013 in channels closed to the bot
 * (until an admin opens them again), 10008 for deleted messages, 50035 for messages past Discord's size limits, expired interaction tokens.
 */
describe("the Discord bot against Discord's refusals", () => {
  let api: TestApi;
  let apiKey: string;
  let harness: BotHarness;

  const generate = (prompt: string, channelId?: string) =>
    harness.fake.runCommand("generate", [{ name: "prompt", type: STRING, value: prompt }], ADMIN, channelId);
  const statusMessageOf = async (interaction: string, status: RegExp) => {
    await until(() => status.test(statusOf(harness.fake.answerTo(interaction)) ?? ""), {
      what: `a status matching ${status}`,
    });
    return harness.fake.answerTo(interaction) as FakeMessage;
  };
  const generationOf = async (message: FakeMessage) => {
    const { prints } = await readJson(await api.request("/v1/image-generations?limit=100", { apiKey }));
    return prints.find(
      (print: { metaData: { chat?: { messageId?: string } } }) =>
        print.metaData.chat?.messageId === message.id,
    ) as { id: string; status: number } | undefined;
  };
  const webhooks = async () =>
    (await readJson(await api.request("/v1/api-keys/webhooks", { apiKey }))).webhooks as {
      disabled: boolean;
      failingSince?: string;
    }[];

  beforeAll(async () => {
    api = await startTestApi({
      env: {
        WEBHOOK_ALLOW_HTTP: "true",
        WEBHOOK_ALLOW_PRIVATE: "true",
        WEBHOOK_RELAY_INTERVAL_MS: "20",
        WEBHOOK_RETRY_SCHEDULE: "0.1,0.2,0.3,0.4,0.5,0.5,0.5",
        PROCEDURAL_IMAGE_DELAY_MS: "150",
      },
    });
    ({ apiKey } = await api.createAccount({ credits: { f_images: 0, f_images_print: 40 } }));
    harness = await startBotHarness(api.baseUrl, {
      IMAGEHUB_API_KEY: apiKey,
      BOT_DEFAULT_KEY_TEAMS: "900000000000000010",
      BOT_MAX_RUNNING_PER_TEAM: "25",
      BOT_DATABASE_URL: api.database.url,
    });
  });

  afterAll(async () => {
    await harness?.close();
    await api?.close();
  });

  it("sits out 429s of the channels' edit buckets and of the global limit: every message ends Done", async () => {
    const { fake } = harness;
    fake.editBudget = { limit: 2, windowMs: 1_000 };
    fake.globalBudget = { limit: 2, windowMs: 1_000 };
    try {
      const interactions = [1, 2, 3].flatMap((take) => [
        generate(`a harbour, take ${take}`),
        generate(`a quay, take ${take}`, fake.otherChannelId),
      ]);
      const messages = await Promise.all(
        interactions.map((interaction) => statusMessageOf(interaction, /^Done$/)),
      );
      await harness.bot.core.updates.settled();

      expect(fake.budgets.refusals()).toBeGreaterThan(0);
      for (const message of messages) {
        expect(message.attachments.map((attachment) => attachment.filename)).toEqual(["images.jpg"]);
        expect(buttonsOf(message)).toEqual(DONE_BUTTONS);
        expect(stepsOf(message)).toEqual([...stepsOf(message)].sort((a, b) => a - b));
      }
      expect(fake.invalidFormBodies).toEqual([]);
    } finally {
      fake.editBudget = { limit: 5, windowMs: 5_000 };
      fake.globalBudget = { limit: 50, windowMs: 1_000 };
    }
  }, 120_000);

  it.each<[string, ChannelRefusal, string]>([
    ["hidden from the bot (50001 Missing Access)", "missing-access", "View Channel"],
    [
      "whose permissions the bot lost (50013 Missing Permissions)",
      "missing-permissions",
      "Send Messages, Embed Links and Attach Files",
    ],
  ])(
    "keeps the message of a channel %s, tells its requester once what to grant, and catches up once granted",
    async (_, refusal, missing) => {
      const { fake } = harness;
      const interaction = generate("a lantern behind a door", fake.otherChannelId);
      const message = await statusMessageOf(interaction, /^Queued$/);
      closeChannel(refusal);
      const told = () =>
        (fake.directMessages.get(ADMIN.id) ?? []).filter((direct) =>
          direct.content.includes(`I need ${missing} in that channel`),
        );
      try {
        await until(async () => (await generationOf(message))?.status === GenerationStatus.Done, {
          what: "the generation to end",
        });
        await until(() => told().length > 0, { what: "the requester told" });
        expect(statusOf(fake.answerTo(interaction))).not.toBe("Done");
      } finally {
        fake.channelRefusals.clear();
      }

      const done = await statusMessageOf(interaction, /^Done$/);
      await harness.bot.core.updates.settled();
      expect(buttonsOf(done)).toEqual(DONE_BUTTONS);
      expect(told()).toHaveLength(1);
      expect(editsOf(message).some((call) => call.status === 403)).toBe(true);
      expect((await webhooks()).map(({ disabled }) => disabled)).toEqual([false]);
      fake.directMessages.clear();
    },
  );

  it.each<[string, (message: FakeMessage) => void]>([
    ["someone deleted (10008 Unknown Message)", (message) => harness.fake.deleteMessage(message.id)],
    [
      "whose channel someone deleted (10003 Unknown Channel)",
      (message) => harness.fake.deleteChannel(message.channel_id),
    ],
  ])(
    "lets go of a message %s, tells its requester by direct message, and the webhook stays on",
    async (_, refuse) => {
      const { fake } = harness;
      const message = await statusMessageOf(
        generate("a lantern in the fog", fake.otherChannelId),
        /^Queued$/,
      );
      refuse(message);
      // Meanwhile, the channel the bot still sees goes on as usual.
      const elsewhere = await statusMessageOf(generate("a lantern on a pier"), /^Done$/);
      await until(async () => (await generationOf(message))?.status === GenerationStatus.Done, {
        what: "the generation to end",
      });
      await harness.bot.core.updates.settled();

      // One edit was refused for good, and the bot tried no other.
      const edits = editsOf(message);
      // A 429 is waited out and tried again; a refusal for good is the last edit.
      const firstRefused = edits.findIndex((call) => (call.status ?? 0) >= 400 && call.status !== 429);
      expect(firstRefused).toBeGreaterThanOrEqual(0);
      expect(edits.slice(firstRefused)).toHaveLength(1);
      expect(elsewhere.attachments.map((attachment) => attachment.filename)).toEqual(["images.jpg"]);
      await until(
        () =>
          (fake.directMessages.get(ADMIN.id) ?? []).some((direct) =>
            direct.content.startsWith("The message of your generation “a lantern in the fog”"),
          ),
        { what: "the requester told" },
      );
      expect((await webhooks()).map(({ disabled, failingSince }) => ({ disabled, failingSince }))).toEqual([
        { disabled: false, failingSince: undefined },
      ]);
      fake.deletedChannels.clear();
      fake.directMessages.clear();
    },
  );

  it.each<[string, ChannelRefusal, RegExp]>([
    [
      "hidden from it",
      "missing-access",
      /I need View Channel, Send Messages, Embed Links and Attach Files here/,
    ],
    [
      "where it may not post",
      "missing-permissions",
      /I need Send Messages, Embed Links and Attach Files here/,
    ],
  ])(
    "refuses /generate in a channel %s, privately, before creating anything it could never show",
    async (_, refusal, answer) => {
      const before = (await readJson(await api.request("/v1/image-generations", { apiKey }))).filteredResults;
      closeChannel(refusal);
      try {
        const interaction = generate("a lantern nobody would see", harness.fake.otherChannelId);
        await until(() => (harness.fake.lastAnswerTo(interaction)?.content ?? "") !== "", {
          what: "the answer",
        });
        expect(harness.fake.lastAnswerTo(interaction)?.content).toMatch(answer);
        expect(harness.fake.lastAnswerTo(interaction)?.flags).toBe(64);
        expect((await readJson(await api.request("/v1/image-generations", { apiKey }))).filteredResults).toBe(
          before,
        );
      } finally {
        harness.fake.channelRefusals.clear();
      }
    },
  );

  it("waits out 30046 (edits of a message older than an hour), to Done", async () => {
    const { fake } = harness;
    const interaction = generate("an old lighthouse");
    const message = await statusMessageOf(interaction, /^Queued$/);
    fake.ageMessage(message.id, 2 * 3_600_000);
    fake.oldMessageEditBudget = { limit: 1, windowMs: 1_500 };
    try {
      await statusMessageOf(interaction, /^Done$/);
      expect(
        fake.calls.some((call) => call.status === 400 && call.path.endsWith(`/messages/${message.id}`)),
      ).toBe(true);
    } finally {
      fake.oldMessageEditBudget = { limit: 3, windowMs: 3_600_000 };
    }
  });

  it("edits the message with the bot's token, so it ends Done after the interaction token expired", async () => {
    const interaction = generate("a slow glacier");
    await statusMessageOf(interaction, /^Queued$/);
    harness.fake.tokenLifetimeMs = 0;
    try {
      const message = await statusMessageOf(interaction, /^Done$/);
      expect(message.attachments.map((attachment) => attachment.filename)).toEqual(["images.jpg"]);
    } finally {
      harness.fake.tokenLifetimeMs = 15 * 60_000;
    }
  });

  it("keeps the longest prompts and parameters within Discord's limits, to Done", async () => {
    const prompt = `${"**[a](https://x.example)** <@&1> ".repeat(200)}`.slice(0, 4096);
    const interaction = harness.fake.runCommand(
      "generate",
      [
        { name: "prompt", type: STRING, value: prompt },
        { name: "avoid", type: STRING, value: "_*".repeat(250) },
        { name: "camera", type: STRING, value: "`".repeat(100) },
      ],
      ADMIN,
    );
    const message = await statusMessageOf(interaction, /^Done$/);
    expect(message.embeds[0]?.description).toHaveLength(DISCORD_LIMITS.embedDescription);
    expect(harness.fake.invalidFormBodies).toEqual([]);
  });

  it("answers a command with many problems in one message Discord takes", async () => {
    const command = Array.from({ length: 200 }, (_, index) => `--bogus${index} 1`).join(" ");
    const interaction = harness.fake.runCommand(
      "generate-advanced",
      [{ name: "command", type: STRING, value: `a castle ${command}`.slice(0, 4096) }],
      ADMIN,
    );
    await until(() => (harness.fake.lastAnswerTo(interaction)?.content ?? "") !== "", { what: "the answer" });
    expect(harness.fake.lastAnswerTo(interaction)?.content).toMatch(/^⚠️ .*--bogus0/s);
    expect(harness.fake.invalidFormBodies).toEqual([]);
  });

  it("builds a failed generation's message within Discord's limits, whatever its texts' lengths", () => {
    const long = (character: string, length: number) => character.repeat(length);
    const message = statusMessage({
      title: long("t", 300),
      prompt: long("*", 5000),
      parameters: [long("p", 900), long("_", 900)],
      phase: "failed",
      status: `Failed: ${long("r", 3000)}`,
      locale: "en",
      imagesDone: 0,
      images: [],
      buttons: [{ id: "imagehub:retry:g", label: "Retry", action: { kind: "retry", generationId: "g" } }],
    });
    const { files: _files, ...body } = message;
    expect(formBodyErrors(body as unknown as Record<string, unknown>)).toBeUndefined();
  });

  function closeChannel(refusal: ChannelRefusal): void {
    harness.fake.channelRefusals.set(harness.fake.otherChannelId, refusal);
  }

  function editsOf(message: FakeMessage) {
    return harness.fake.calls.filter(
      (call) =>
        call.method === "PATCH" && call.path === `/channels/${message.channel_id}/messages/${message.id}`,
    );
  }
});
