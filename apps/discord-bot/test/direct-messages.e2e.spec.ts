import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DONE_BUTTONS } from "../../../packages/chat-core/test/support/done-buttons.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { type BotHarness, startBotHarness } from "./support/discord-bot-harness.js";
import type { FakeMessage, Member } from "./support/fake-discord.js";
import { answerWithText, buttonsOf, EPHEMERAL, STRING, SUBCOMMAND, statusOf } from "./support/fixtures.js";

const PERSON: Member = { id: "100000000000000007", username: "person" };

/**
 * `/generate` in a person's direct messages with the bot: with the key they connected there, never the
 * bot's default key (which serves the servers it names), or a refusal that says how to connect.
 */
describe("the Discord bot in direct messages", () => {
  let api: TestApi;
  let harness: BotHarness;
  let defaultKey: string;
  let ownKey: string;

  const answerText = (interactionId: string) => answerWithText(harness.fake, interactionId);
  const generateInDirect = (prompt: string) =>
    harness.fake.runCommandInDirect("generate", [{ name: "prompt", type: STRING, value: prompt }], PERSON);
  const generationsOf = async (apiKey: string) =>
    (await readJson(await api.request("/v1/image-generations", { apiKey }))).filteredResults as number;

  beforeAll(async () => {
    api = await startTestApi({
      env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RELAY_INTERVAL_MS: "20" },
    });
    ({ apiKey: defaultKey } = await api.createAccount({ credits: { f_images: 5, f_images_print: 5 } }));
    ({ apiKey: ownKey } = await api.createAccount({ credits: { f_images: 5, f_images_print: 5 } }));
    harness = await startBotHarness(api.baseUrl, {
      IMAGEHUB_API_KEY: defaultKey,
      BOT_DEFAULT_KEY_TEAMS: "900000000000000010",
      BOT_DATABASE_URL: api.database.url,
    });
  });
  afterAll(async () => {
    await harness?.close();
    await api?.close();
  });

  it("refuses /generate before the person connected a key, telling them how, and creates nothing", async () => {
    const answer = await answerText(generateInDirect("a lake at night"));

    expect(answer?.flags).toBe(EPHEMERAL);
    expect(answer?.content).toMatch(
      /uses your own account: run `\/imagehub connect key:<your API key>` here/,
    );
    expect(await generationsOf(defaultKey)).toBe(0);
  });

  it("follows /generate to Done with the person's own key, once they connected it there", async () => {
    const connect = harness.fake.runCommandInDirect(
      "imagehub",
      [{ name: "connect", type: SUBCOMMAND, options: [{ name: "key", type: STRING, value: ownKey }] }],
      PERSON,
    );
    expect((await answerText(connect))?.content).toMatch(
      /^Connected to the imagehub account of .+: \/generate in these direct messages, for you alone, now uses it/,
    );

    const interaction = generateInDirect("a lake at dawn");
    await until(() => statusOf(harness.fake.answerTo(interaction)) === "Done", { what: "Done" });
    const message = harness.fake.answerTo(interaction) as FakeMessage;
    expect(message.channel_id).toBe(harness.fake.directChannelWith(PERSON.id));
    expect(message.attachments.map((attachment) => attachment.filename)).toEqual(["images.jpg"]);
    expect(buttonsOf(message)).toEqual(DONE_BUTTONS);
    expect([await generationsOf(ownKey), await generationsOf(defaultKey)]).toEqual([1, 0]);
    await until(
      () =>
        (harness.fake.directMessages.get(PERSON.id) ?? []).some((notice) =>
          notice.content.endsWith(`/channels/@me/${message.channel_id}/${message.id}`),
        ),
      { what: "the completion notice" },
    );

    const buy = harness.fake.clickButton(
      message.id,
      message.components[0]?.components[0]?.custom_id ?? "",
      PERSON,
    );
    expect((await answerText(buy))?.content).toMatch(/^Image 1 is yours: /);
  });
});
