import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { type BotHarness, startBotHarness } from "./support/discord-bot-harness.js";
import type { Member } from "./support/fake-discord.js";
import {
  ADMIN,
  answerWithText,
  EPHEMERAL,
  INTEGER,
  MEMBER,
  STRING,
  SUBCOMMAND,
  statusOf,
} from "./support/fixtures.js";

/** The daily quota of generations per person a server's admins set, and `/imagehub usage`. */
describe("the Discord bot's daily quota per person", () => {
  let api: TestApi;
  let harness: BotHarness;

  const answerOf = (interactionId: string) => answerWithText(harness.fake, interactionId);
  const imagehub = (subcommand: string, member: Member, options: unknown[] = []) =>
    harness.fake.runCommand("imagehub", [{ name: subcommand, type: SUBCOMMAND, options }], member);
  const generate = (prompt: string) =>
    harness.fake.runCommand("generate", [{ name: "prompt", type: STRING, value: prompt }], MEMBER);

  beforeAll(async () => {
    api = await startTestApi({
      env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RELAY_INTERVAL_MS: "20" },
    });
    const { apiKey } = await api.createAccount({ credits: { f_images: 0, f_images_print: 5 } });
    harness = await startBotHarness(api.baseUrl, {
      IMAGEHUB_API_KEY: apiKey,
      BOT_DEFAULT_KEY_TEAMS: "900000000000000010",
      BOT_DATABASE_URL: api.database.url,
    });
  });
  afterAll(async () => {
    await harness?.close();
    await api?.close();
  });

  it("is set by an admin alone", async () => {
    const quota = [{ name: "daily-generations", type: INTEGER, value: 1 }];
    expect((await answerOf(imagehub("settings", MEMBER, quota))).content).toMatch(/Manage Server/);
    expect((await answerOf(imagehub("settings", ADMIN, quota))).content).toContain(
      "• Generations per person: 1 generation a day each (UTC).",
    );
  });

  it("refuses a person's start past it, privately, and tells them their usage alone", async () => {
    const first = generate("a quota of one");
    await until(() => statusOf(harness.fake.answerTo(first)) === "Done", { what: "the first generation" });

    const refused = await answerOf(generate("one too many"));
    expect(refused.flags).toBe(EPHEMERAL);
    expect(refused.content).toContain(
      "You have started your 1 generation for today (this team's daily quota per person)",
    );
    const usage = await answerOf(imagehub("usage", MEMBER));
    expect(usage.flags).toBe(EPHEMERAL);
    expect(usage.content).toBe(
      [
        "Your use of imagehub here:",
        "• Today (UTC) you started 1 generation of the 1 this team allows each person a day.",
        "• No wait between two generations.",
        "• This team has 0 of its 10 generations at once queued or running.",
      ].join("\n"),
    );
  });
});
