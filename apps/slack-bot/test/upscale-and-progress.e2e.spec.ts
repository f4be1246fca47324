import type { ImagehubClient } from "@imagehub/client";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { type FakeMessage, FakeSlack } from "./support/fake-slack.js";
import { buttonsOf, imagehubClient, statusesOf, statusMessageAt } from "./support/imagehub.js";
import type { Workspace } from "./support/slack-requests.js";
import { BOT_TOKEN, startTestBot, type TestBot } from "./support/test-bot.js";

const TEAM = "T001";
const REQUESTER: Workspace = { teamId: TEAM, channelId: "C700", userId: "U700" };

/**
 * The Midjourney habits on Slack, with the real API and worker and Slack fetching the bot's links itself
 * (SLACK_IMAGES_PUBLIC): the grid that grows as the images are drawn, and U1–U4 (the chosen image in full
 * size in the thread, bought as Buy would, its renditions' links to the clicker alone).
 */
describe("U1–U4 and the growing grid on Slack", () => {
  let api: TestApi;
  let fake: FakeSlack;
  let testBot: TestBot;
  let imagehub: ImagehubClient;
  let message: FakeMessage;

  const purchaseCredits = async () =>
    (await imagehub.credits.get()).credits.find((credit) => credit.type === "f_images")?.credit;
  const fullSizeFiles = () =>
    [...fake.files.values()].filter(
      (file) => file.threadTs === message.ts && file.filename.endsWith("-full.jpg"),
    );
  const click = (label: string, userId = REQUESTER.userId) =>
    testBot.sender.click(
      { ...REQUESTER, userId },
      message,
      buttonsOf(message).find((button) => button.label === label)?.actionId ?? "",
    );
  const answersTo = (userId: string) =>
    fake.callsOf("chat.postEphemeral").filter((call) => call.args.user === userId);

  beforeAll(async () => {
    [api, fake] = await Promise.all([
      startTestApi({
        env: {
          WEBHOOK_ALLOW_HTTP: "true",
          WEBHOOK_ALLOW_PRIVATE: "true",
          WEBHOOK_RELAY_INTERVAL_MS: "20",
          // An image a second: the message has the time to show each one.
          PROCEDURAL_IMAGE_DELAY_MS: "1000",
        },
      }),
      FakeSlack.start(),
    ]);
    fake.addBotToken(BOT_TOKEN, TEAM);
    fake.addUser({ id: "U701" });
    const { apiKey } = await api.createAccount({ credits: { f_images: 5, f_images_print: 5 } });
    imagehub = imagehubClient(api, apiKey);
    testBot = await startTestBot(fake, {
      IMAGEHUB_BASE_URL: api.baseUrl,
      IMAGEHUB_API_KEY: apiKey,
      SLACK_IMAGES_PUBLIC: "true",
    });
    await testBot.sender.command(REQUESTER, "/generate", "a harbour at dawn");
    message = await statusMessageAt(fake, REQUESTER.channelId);
  });
  afterAll(async () => {
    await testBot?.close();
    await fake?.close();
    await api?.close();
  });

  it("shows the images already drawn while generating: a grid of the first n at a link per step, fetched by Slack", () => {
    const drawing = message.versions.filter((_, index) =>
      /^Generating… [1-4]\/4$/.test(statusesOf(message)[index] ?? ""),
    );
    expect(drawing.length).toBeGreaterThan(0);
    for (const version of drawing) {
      const drawn = /(\d)\/4/.exec(version.text)?.[1];
      const image = version.blocks.find((block) => block.type === "image");
      const url = new URL(String(image?.image_url));
      expect(url.searchParams.get("images")).toBe(drawn);
      expect(image?.alt_text).toMatch(new RegExp(`^The first ${drawn} images of “a harbour at dawn”`));
      expect(fake.imageFetches).toContainEqual({ url: url.href, status: 200 });
    }
  });

  it("answers U2 with the links to the clicker alone and image 2 in full size in the thread, once", async () => {
    const before = await purchaseCredits();
    await click("U2");
    await until(() => fullSizeFiles().length > 0, { what: "the image in full size" });
    await click("U2");
    await until(() => answersTo(REQUESTER.userId).length === 2, { what: "the second answer" });

    expect(answersTo(REQUESTER.userId).map((call) => call.args.text)).toEqual([
      expect.stringMatching(/^Image 2 is yours: /),
      expect.stringMatching(/^Image 2 is yours: /),
    ]);
    expect(fullSizeFiles().map((file) => [file.filename, file.channelId])).toEqual([
      ["image-2-full.jpg", REQUESTER.channelId],
    ]);
    expect((await sharp(fullSizeFiles()[0]?.bytes).metadata()).format).toBe("jpeg");
    expect(await purchaseCredits()).toBe((before ?? 0) - 1);
  });

  it("refuses U1 to a member the team does not let buy: told alone, nothing shared, nothing debited", async () => {
    const before = await purchaseCredits();
    await click("U1", "U701");
    await until(() => answersTo("U701").length > 0, { what: "the answer" });

    expect(answersTo("U701")[0]?.args.text).toMatch(/^:no_entry: Only the person who asked for these images/);
    expect(fullSizeFiles().map((file) => file.filename)).toEqual(["image-2-full.jpg"]);
    expect(await purchaseCredits()).toBe(before);
  });
});
