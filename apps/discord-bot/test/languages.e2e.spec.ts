import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { type BotHarness, startBotHarness } from "./support/discord-bot-harness.js";
import type { FakeMessage, Member } from "./support/fake-discord.js";
import {
  ADMIN,
  WEBHOOKS_AT_ONCE as API_ENV,
  answerWithText,
  buttonsOf,
  EPHEMERAL,
  noticesOf,
  STRING,
  SUBCOMMAND,
  statusOf,
} from "./support/fixtures.js";

/** A member whose Discord client speaks French. */
const FRENCH: Member = { id: "100000000000000031", username: "amelie", permissions: "0", locale: "fr" };
/** A member whose Discord client speaks a language the bot does not: the server's (English) it is. */
const GERMAN: Member = { id: "100000000000000032", username: "jonas", permissions: "0", locale: "de" };

/** The French field "État" of a status message. */
const frenchStatusOf = (message: FakeMessage | undefined) =>
  message?.embeds[0]?.fields?.find((field) => field.name === "État")?.value;

/** The bot answers each person in their Discord client's language (French or English), else the server's. */
describe("the Discord bot's languages", () => {
  let api: TestApi;
  let harness: BotHarness;

  const answerOf = (interactionId: string) => answerWithText(harness.fake, interactionId);
  const usage = (member: Member) =>
    harness.fake.runCommand("imagehub", [{ name: "usage", type: SUBCOMMAND, options: [] }], member);

  beforeAll(async () => {
    api = await startTestApi({ env: API_ENV });
    const { apiKey } = await api.createAccount({ credits: { f_images: 10, f_images_print: 10 } });
    harness = await startBotHarness(api.baseUrl, { BOT_DATABASE_URL: api.database.url });
    await harness.bot.core.connections.connect(harness.fake.guildId, apiKey, ADMIN.id);
  });
  afterAll(async () => {
    await harness?.close();
    await api?.close();
  });

  it("shows a French requester's status message in French to its end, and tells them in French", async () => {
    const interaction = harness.fake.runCommand(
      "generate",
      [{ name: "prompt", type: STRING, value: "un phare sur une falaise" }],
      FRENCH,
    );
    await until(() => frenchStatusOf(harness.fake.answerTo(interaction)) === "Terminé", {
      what: "the French status message at its end",
    });
    const message = harness.fake.answerTo(interaction) as FakeMessage;

    expect(buttonsOf(message)).toEqual(
      expect.arrayContaining(["Acheter 1", "U1", "V1", "Voir les 4", "Relancer"]),
    );
    await until(() => noticesOf(harness, message).length === 1, { what: "the completion notice" });
    expect(noticesOf(harness, message)[0]?.content).toMatch(
      new RegExp(`^<@${FRENCH.id}> vos images de « un phare sur une falaise » sont prêtes`),
    );
  });

  it("answers a French member's commands in French, privately", async () => {
    const answer = await answerOf(usage(FRENCH));

    expect(answer.flags).toBe(EPHEMERAL);
    expect(answer.content).toMatch(
      /^Votre utilisation d’imagehub ici :\n• Aujourd’hui \(UTC\), vous avez lancé 1 génération/,
    );
  });

  it("answers in English a member whose language it does not speak, in an English server", async () => {
    expect((await answerOf(usage(GERMAN))).content).toMatch(
      /^Your use of imagehub here:\n• Today \(UTC\) you started 0 generations/,
    );
  });

  it("keeps the English of an English requester's status message", async () => {
    const interaction = harness.fake.runCommand(
      "generate",
      [{ name: "prompt", type: STRING, value: "a lighthouse on a cliff" }],
      ADMIN,
    );
    await until(() => statusOf(harness.fake.answerTo(interaction)) === "Done", { what: "Done" });

    expect(buttonsOf(harness.fake.answerTo(interaction))).toContain("Buy 1");
  });
});
