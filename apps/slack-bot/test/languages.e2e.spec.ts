import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../../tests/support/until.js";
import type { FakeMessage } from "./support/fake-slack.js";
import { buttonsOf, imagehubAndSlack, statusesOf, statusMessageAt } from "./support/imagehub.js";
import type { Workspace } from "./support/slack-requests.js";
import { startTestBot, type TestBot } from "./support/test-bot.js";

const TEAM = "T001";
/** A person whose Slack speaks French (users.info's locale "fr-FR"). */
const FRENCH: Workspace = { teamId: TEAM, channelId: "C800", userId: "U801" };
/** A person whose Slack speaks English. */
const ENGLISH: Workspace = { teamId: TEAM, channelId: "C810", userId: "U802" };

/** The bot answers each person in the language of their Slack (users.info), English by default. */
describe("the Slack bot's languages", () => {
  const { api, fake } = imagehubAndSlack(TEAM);
  let testBot: TestBot;

  const answerTo = async (workspace: Workspace, command: string, text: string) => {
    const { responseUrl } = await testBot.sender.command(workspace, command, text);
    await until(() => fake().responsesTo(responseUrl).length > 0, {
      what: `the answer to ${command} ${text}`,
    });
    return String(fake().responsesTo(responseUrl)[0]?.body.text);
  };

  beforeAll(async () => {
    fake().addUser({ id: FRENCH.userId, locale: "fr-FR" });
    fake().addUser({ id: ENGLISH.userId, locale: "en-GB" });
    const { apiKey } = await api().createAccount({ credits: { f_images: 5, f_images_print: 5 } });
    testBot = await startTestBot(fake(), { IMAGEHUB_BASE_URL: api().baseUrl, IMAGEHUB_API_KEY: apiKey });
  });
  afterAll(() => testBot?.close());

  describe("a French requester's generation", () => {
    let message: FakeMessage;

    beforeAll(async () => {
      await testBot.sender.command(FRENCH, "/generate", "un phare sur une falaise");
      message = await statusMessageAt(fake(), FRENCH.channelId, "Terminé");
    });

    it("shows its status message in French at every step, with French buttons", () => {
      const statuses = statusesOf(message);
      expect(statuses[0]).toBe("En file d’attente");
      expect(statuses.some((status) => /^Génération en cours… \d\/4$/.test(status))).toBe(true);
      expect(statuses.at(-1)).toBe("Terminé");
      expect(buttonsOf(message).map((button) => button.label)).toEqual(
        expect.arrayContaining(["Acheter 1", "U1", "V1", "Voir les 4", "Relancer"]),
      );
    });

    it("tells its requester in French that the images are ready", async () => {
      await until(() => fake().messagesIn(FRENCH.channelId).length > 1, { what: "the completion notice" });
      expect(fake().messagesIn(FRENCH.channelId)[1]?.text).toBe(
        `<@${FRENCH.userId}> vos images de « un phare sur une falaise » sont prêtes.`,
      );
    });
  });

  it("answers a French person's commands in French, asking Slack their language once", async () => {
    expect(await answerTo(FRENCH, "/imagehub", "usage")).toMatch(
      /^:bar_chart: Votre utilisation d’imagehub ici :\n• Aujourd’hui \(UTC\), vous avez lancé 1 génération /,
    );
    const { response } = await testBot.sender.command(FRENCH, "/generate", "un phare --couleur rouge");
    expect(((await response.json()) as { text: string }).text).toMatch(
      /^:no_entry: Rien n’a été créé\. --couleur : option inconnue/,
    );
    const lookups = fake()
      .callsOf("users.info")
      .filter((call) => call.args.user === FRENCH.userId);
    expect(lookups).toHaveLength(1);
    expect(String(lookups[0]?.args.include_locale)).toBe("true");
  });

  it("answers an English person in English", async () => {
    expect(await answerTo(ENGLISH, "/imagehub", "usage")).toMatch(
      /^:bar_chart: Your use of imagehub here:\n• Today \(UTC\) you started 0 generations/,
    );
  });
});
