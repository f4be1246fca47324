import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { type BotHarness, startBotHarness } from "./support/discord-bot-harness.js";
import type { FakeMessage } from "./support/fake-discord.js";
import { ADMIN, buttonId, EPHEMERAL, MEMBER, STRING, statusOf } from "./support/fixtures.js";

/**
 * The Midjourney habits on Discord, with the real API and worker: the grid that grows as the images are
 * drawn, and U1–U4 (the chosen image in full size, bought as Buy would, its renditions' links).
 */
describe("U1–U4 and the growing grid on Discord", () => {
  let api: TestApi;
  let apiKey: string;
  let harness: BotHarness;
  let final: FakeMessage;

  const purchaseCredits = async () => {
    const { credits } = await readJson(await api.request("/v1/credit", { apiKey }));
    return credits.find((credit: { type: string }) => credit.type === "f_images").credit as number;
  };

  beforeAll(async () => {
    api = await startTestApi({
      env: {
        WEBHOOK_ALLOW_HTTP: "true",
        WEBHOOK_ALLOW_PRIVATE: "true",
        WEBHOOK_RELAY_INTERVAL_MS: "20",
        // An image a second: the message has the time to show each one.
        PROCEDURAL_IMAGE_DELAY_MS: "1000",
      },
    });
    ({ apiKey } = await api.createAccount({ credits: { f_images: 5, f_images_print: 5 } }));
    harness = await startBotHarness(api.baseUrl, {
      IMAGEHUB_API_KEY: apiKey,
      BOT_DEFAULT_KEY_TEAMS: "900000000000000010",
      BOT_DATABASE_URL: api.database.url,
    });
    const interaction = harness.fake.runCommand(
      "generate",
      [{ name: "prompt", type: STRING, value: "a harbour at dawn" }],
      ADMIN,
    );
    await until(() => statusOf(harness.fake.answerTo(interaction)) === "Done", { what: "Done" });
    final = harness.fake.answerTo(interaction) as FakeMessage;
  });
  afterAll(async () => {
    await harness?.close();
    await api?.close();
  });

  it("shows the images already drawn while generating: the grid grows as they arrive", () => {
    const steps = final.statusHistory.map((status, index) => ({ status, image: final.imageHistory[index] }));
    const drawing = steps.filter((step) => /^Generating… [1-4]\/4$/.test(step.status));
    expect(drawing.length).toBeGreaterThan(0);
    expect(drawing.map((step) => step.image)).toEqual(drawing.map(() => "attachment://images.jpg"));
    const before = steps.filter((step) => step.status === "Queued" || step.status === "Generating… 0/4");
    expect(before.map((step) => step.image)).toEqual(before.map(() => undefined));
  });

  it("answers U2 with the links to the clicker alone and image 2 in full size in the channel, debited once", async () => {
    const before = await purchaseCredits();
    const click = harness.fake.clickButton(final.id, buttonId(final, "U2"), ADMIN);
    await until(() => harness.fake.followUpsTo(click).some((message) => message.attachments.length > 0), {
      what: "the image in full size",
    });

    const answer = harness.fake.answerTo(click);
    expect(answer?.flags).toBe(EPHEMERAL);
    expect(answer?.content).toMatch(/^Image 2 is yours: \[Full size\]\(.+\) · .*\[UHD\]/);
    const [shared] = harness.fake.followUpsTo(click);
    expect(shared?.flags).toBe(0);
    expect(shared?.content).toBe(`Image 2 in full size, for <@${ADMIN.id}> (U2).`);
    expect(shared?.attachments.map((attachment) => attachment.filename)).toEqual(["image-2-full.jpg"]);
    const fullSize = await sharp(shared?.attachments[0]?.data).metadata();
    const preview = await sharp(final.attachments[0]?.data).metadata();
    expect(fullSize.format).toBe("jpeg");
    // Larger than the image's quarter of the grid of previews.
    expect(fullSize.width ?? 0).toBeGreaterThan((preview.width ?? 0) / 2);
    expect(await purchaseCredits()).toBe(before - 1);
  });

  it("refuses U1 to a member the team does not let buy: told alone, nothing shown, nothing debited", async () => {
    const before = await purchaseCredits();
    const click = harness.fake.clickButton(final.id, buttonId(final, "U1"), MEMBER);
    await until(() => (harness.fake.answerTo(click)?.content ?? "") !== "", { what: "the answer" });

    expect(harness.fake.answerTo(click)?.content).toMatch(/^⚠️ Only the person who asked for these images/);
    expect(harness.fake.answerTo(click)?.flags).toBe(EPHEMERAL);
    expect(harness.fake.followUpsTo(click)).toEqual([]);
    expect(await purchaseCredits()).toBe(before);
  });
});
