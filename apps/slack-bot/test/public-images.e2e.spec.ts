import type { ImagehubClient } from "@imagehub/client";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DONE_BUTTONS } from "../../../packages/chat-core/test/support/done-buttons.js";
import { until } from "../../../tests/support/until.js";
import { aWorkspace } from "./support/fixtures.js";
import {
  buttonsOf,
  generationOf,
  imagehubAndSlack,
  imagehubClient,
  statusMessageAt,
} from "./support/imagehub.js";
import { startTestBot, type TestBot } from "./support/test-bot.js";

const TEAM = "T001";

/** The bot when Slack fetches the images' links itself (SLACK_IMAGES_PUBLIC): one grid at the bot's signed link. */
describe("the Slack bot with public images", () => {
  const { api, fake } = imagehubAndSlack(TEAM);

  describe("when Slack can fetch imagehub's images, for an account without purchase credits", () => {
    let testBot: TestBot;
    let imagehub: ImagehubClient;

    beforeAll(async () => {
      const { apiKey } = await api().createAccount({ credits: { f_images: 0, f_images_print: 5 } });
      imagehub = imagehubClient(api(), apiKey);
      testBot = await startTestBot(fake(), {
        IMAGEHUB_BASE_URL: api().baseUrl,
        IMAGEHUB_API_KEY: apiKey,
        SLACK_IMAGES_PUBLIC: "true",
      });
    });
    afterAll(() => testBot?.close());

    it("shows the same one grid, at the bot's own signed link, uploads nothing, and says the credits are not enough", async () => {
      const workspace = aWorkspace("U020");
      const uploadsBefore = fake().callsOf("files.getUploadURLExternal").length;
      await testBot.sender.command(workspace, "/generate", "a red barn");
      const message = await statusMessageAt(fake(), workspace.channelId);

      const images = message.blocks.filter((block) => block.type === "image");
      expect(images).toHaveLength(1);
      expect(images[0]?.alt_text).toBe("The 4 images of “a red barn”, 1 and 2 above, 3 and 4 below");
      expect(fake().callsOf("files.getUploadURLExternal")).toHaveLength(uploadsBefore);
      // What Slack fetches: the 2×2 grid of the 4 previews.
      const gridUrl = new URL(String(images[0]?.image_url));
      expect(gridUrl.origin).toBe(testBot.url);
      const grid = await fetch(gridUrl);
      expect(grid.headers.get("content-type")).toBe("image/jpeg");
      const generation = await generationOf(imagehub, message);
      const preview = await imagehub.images.display("preview", generation.images[0]?.id ?? "");
      const [gridSize, previewSize] = [
        await sharp(Buffer.from(await grid.arrayBuffer())).metadata(),
        await sharp(Buffer.from(await preview.arrayBuffer())).metadata(),
      ];
      expect([gridSize.width, gridSize.height]).toEqual([
        2 * (previewSize.width ?? 0),
        2 * (previewSize.height ?? 0),
      ]);
      gridUrl.searchParams.set("signature", "forged");
      expect((await fetch(gridUrl)).status).toBe(404);

      await testBot.sender.click(workspace, message, buttonsOf(message)[0]?.actionId ?? "");
      await until(
        () =>
          fake()
            .callsOf("chat.postEphemeral")
            .some((call) => call.args.user === "U020"),
        {
          what: "the answer",
        },
      );
      const answer = fake()
        .callsOf("chat.postEphemeral")
        .find((call) => call.args.user === "U020");
      expect(answer?.args.text).toMatch(/^:no_entry: Not enough credits to buy image 1: /);
    });

    it("ends Done with the grid uploaded when Slack keeps failing to download its link (invalid_blocks)", async () => {
      const workspace = aWorkspace("U021");
      fake().failingImageDownloads = 1_000;
      try {
        await testBot.sender.command(workspace, "/generate", "a barn in the fog");
        const message = await statusMessageAt(fake(), workspace.channelId);

        const images = message.blocks.filter((block) => block.type === "image");
        expect(images.map((image) => image.slack_file !== undefined)).toEqual([true]);
        expect(buttonsOf(message).map((button) => button.label)).toEqual(DONE_BUTTONS);
        expect(fake().refusedLayouts.at(-1)?.errors[0]).toMatch(/^downloading image failed/);
      } finally {
        fake().failingImageDownloads = 0;
      }
    });
  });
});
