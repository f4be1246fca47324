import { decodeAction } from "@imagehub/chat-core";
import type { ImagehubClient } from "@imagehub/client";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DONE_BUTTONS } from "../../../packages/chat-core/test/support/done-buttons.js";
import { until } from "../../../tests/support/until.js";
import type { FakeMessage } from "./support/fake-slack.js";
import { aWorkspace } from "./support/fixtures.js";
import {
  buttonsOf,
  generationOf,
  imagehubAndSlack,
  imagehubClient,
  statusesOf,
  statusMessageAt,
} from "./support/imagehub.js";
import type { Workspace } from "./support/slack-requests.js";
import { BOT_TOKEN, startTestBot, type TestBot } from "./support/test-bot.js";

const TEAM = "T001";
async function purchaseCredits(imagehub: ImagehubClient): Promise<number> {
  const { credits } = await imagehub.credits.get();
  return credits.find((credit) => credit.type === "f_images")?.credit ?? Number.NaN;
}

describe("the Slack bot with imagehub", () => {
  const { api, fake } = imagehubAndSlack(TEAM);

  describe("when imagehub is not reachable from the internet", () => {
    let testBot: TestBot;
    let imagehub: ImagehubClient;

    beforeAll(async () => {
      const { apiKey } = await api().createAccount({ credits: { f_images: 10, f_images_print: 20 } });
      imagehub = imagehubClient(api(), apiKey);
      testBot = await startTestBot(fake(), { IMAGEHUB_BASE_URL: api().baseUrl, IMAGEHUB_API_KEY: apiKey });
    });
    afterAll(() => testBot?.close());

    /** Runs `/generate` and waits for its status message to finish. */
    async function generate(workspace: Workspace, text: string, ending = "Done"): Promise<FakeMessage> {
      const { response } = await testBot.sender.command(workspace, "/generate", text);
      expect(response.status).toBe(200);
      return statusMessageAt(fake(), workspace.channelId, ending);
    }

    it("follows /generate with flags from Queued through Generating to Done", async () => {
      const workspace = aWorkspace();
      const message = await generate(
        workspace,
        'a red fox in the snow --format 16:9 --weather snowy --avoid "text, logos"',
      );

      const statuses = statusesOf(message);
      expect(statuses[0]).toBe("Queued");
      expect(statuses.at(-1)).toBe("Done");
      const counts = statuses
        .filter((status) => status.startsWith("Generating…"))
        .map((status) => status.at(-3));
      expect(counts.length).toBeGreaterThan(0);
      expect(counts).toEqual([...counts].sort());
      expect(JSON.stringify(message.versions[0]?.blocks)).toContain(
        "format 16:9 · weather snowy · avoid: text, logos",
      );
    });

    it("records the status message in the generation's metaData", async () => {
      const workspace = aWorkspace("U002");
      const message = await generate(workspace, "a lighthouse at dusk");

      const generation = await generationOf(imagehub, message);
      expect(generation.metaData.chat).toEqual({
        platform: "slack",
        teamId: TEAM,
        channelId: workspace.channelId,
        messageId: message.ts,
        userId: "U002",
        postedAt: expect.any(Number),
        locale: "en",
        signature: expect.any(String),
      });
      expect(generation.tags).toContain(`slack:${TEAM}`);
    });

    it("shows one 2×2 grid of the 4 previews, uploaded into its thread, and ends with Buy 1 to 4, Show all, Again", async () => {
      const workspace = aWorkspace();
      const message = await generate(workspace, "a castle on a hill --time sunrise");

      const uploaded = [...fake().files.values()].filter((file) => file.threadTs === message.ts);
      expect(uploaded.map((file) => file.filename)).toEqual(["images.jpg"]);
      const [grid] = uploaded;
      expect(grid?.channelId).toBe(workspace.channelId);
      const { format, width = 0, height = 0 } = await sharp(grid?.bytes).metadata();
      expect(format).toBe("jpeg");
      expect(Math.max(width, height)).toBe(1024);
      expect(message.blocks.find((block) => block.type === "image")?.slack_file).toEqual({ id: grid?.id });
      // Each quadrant is its preview: image 1 top left … image 4 bottom right.
      const generation = await generationOf(imagehub, message);
      for (const [index, image] of generation.images.entries()) {
        const preview = Buffer.from(await (await imagehub.images.display("preview", image.id)).arrayBuffer());
        const region = {
          left: (index % 2) * (width / 2),
          top: Math.floor(index / 2) * (height / 2),
          width: width / 2,
          height: height / 2,
        };
        const quadrant = await sharp(await sharp(grid?.bytes).extract(region).toBuffer()).stats();
        const own = await sharp(preview).stats();
        for (const channel of [0, 1, 2]) {
          expect(
            Math.abs((quadrant.channels[channel]?.mean ?? 0) - (own.channels[channel]?.mean ?? 0)),
          ).toBeLessThan(6);
        }
      }
      expect(buttonsOf(message).map((button) => button.label)).toEqual(DONE_BUTTONS);
      expect(
        buttonsOf(message)
          .slice(0, 4)
          .map((button) => decodeAction(button.actionId)),
      ).toEqual(
        generation.images.map((image, index) => ({
          kind: "buy",
          imageId: image.id,
          imageNumber: index + 1,
          generationId: generation.id,
        })),
      );
    });

    it("tells the requester in one new message that mentions them", async () => {
      const workspace = aWorkspace("U040");
      const message = await generate(workspace, "a quiet pier");

      const notice = () =>
        fake()
          .messagesIn(workspace.channelId)
          .filter((posted) => posted.ts !== message.ts);
      await until(() => notice().length > 0, { what: "the notice" });
      expect(notice().map((posted) => posted.text)).toEqual([
        "<@U040> your images of “a quiet pier” are ready.",
      ]);
    });

    it("posts the 4 images one by one in the thread on Show all, once, and tells the clicker", async () => {
      const workspace = aWorkspace("U041");
      const message = await generate(workspace, "a red lighthouse");
      const show = buttonsOf(message).find((button) => button.label === "Show all 4")?.actionId ?? "";

      const { responseUrl } = await testBot.sender.click({ ...workspace, userId: "U099" }, message, show);
      await until(() => fake().responsesTo(responseUrl).length > 0, { what: "the answer" });
      expect(fake().responsesTo(responseUrl)[0]?.body.text).toMatch(
        /The 4 images are in this message's thread/,
      );
      const again = await testBot.sender.click({ ...workspace, userId: "U099" }, message, show);
      await until(() => fake().responsesTo(again.responseUrl).length > 0, { what: "the second answer" });
      const previews = [...fake().files.values()].filter(
        (file) => file.threadTs === message.ts && file.filename !== "images.jpg",
      );
      expect(previews.map((file) => file.filename)).toEqual([
        "image-1.jpg",
        "image-2.jpg",
        "image-3.jpg",
        "image-4.jpg",
      ]);
    });

    it("refuses Buy to whoever is neither the requester, an admin nor in the buyers' group, until an admin adds the group", async () => {
      const workspace = aWorkspace("U050");
      const message = await generate(workspace, "a green valley");
      const buy1 = buttonsOf(message)[0]?.actionId ?? "";
      fake().addUser({ id: "U051" });
      fake().addUser({ id: "UADMIN", isAdmin: true });
      fake().userGroups.set("S0DESIGN", ["U051"]);
      fake().userGroupHandles.set("S0DESIGN", "designers");
      const creditsBefore = await purchaseCredits(imagehub);
      const answersTo = (user: string) =>
        fake()
          .callsOf("chat.postEphemeral")
          .filter((call) => call.args.user === user && call.args.channel === workspace.channelId);

      await testBot.sender.click({ ...workspace, userId: "U051" }, message, buy1);
      await until(() => answersTo("U051").length === 1, { what: "the refusal" });
      expect(answersTo("U051")[0]?.args.text).toBe(
        ":no_entry: Only the person who asked for these images, the admins may buy them in this team.",
      );
      expect(await purchaseCredits(imagehub)).toBe(creditsBefore);

      const notAdmin = await testBot.sender.command(
        { ...workspace, userId: "U051" },
        "/imagehub",
        "settings buyers S0DESIGN",
      );
      await until(() => fake().responsesTo(notAdmin.responseUrl).length > 0, { what: "the refusal" });
      expect(fake().responsesTo(notAdmin.responseUrl)[0]?.body.text).toMatch(/Only workspace admins/);
      const admin = await testBot.sender.command(
        { ...workspace, userId: "UADMIN" },
        "/imagehub",
        // The manifest's should_escape false: Slack sends a user group mention as typed.
        "settings buyers @designers cap 5",
      );
      await until(() => fake().responsesTo(admin.responseUrl).length > 0, { what: "the settings" });
      expect(fake().responsesTo(admin.responseUrl)[0]?.body.text).toBe(
        ":white_check_mark: Settings saved.\n• Who may buy: the person who asked for the images, the admins and the members of <!subteam^S0DESIGN>.\n• Daily purchase cap: 5 images a day (UTC).\n• Generations per person: no daily quota.",
      );

      await testBot.sender.click({ ...workspace, userId: "U051" }, message, buy1);
      await until(() => answersTo("U051").length === 2, { what: "the purchase" });
      expect(JSON.stringify(answersTo("U051")[1]?.args.blocks)).toContain("Image 1 is yours");
      expect(await purchaseCredits(imagehub)).toBe(creditsBefore - 1);
      const reset = await testBot.sender.command(
        { ...workspace, userId: "UADMIN" },
        "/imagehub",
        "settings buyers none cap none",
      );
      await until(() => fake().responsesTo(reset.responseUrl).length > 0, { what: "the reset" });
    });

    it("starts a new variation on Again, in a new status message for whoever clicked: a new seed, new images", async () => {
      const workspace = aWorkspace("U060");
      const message = await generate(workspace, "a blue tram --format 16:9");
      const againId = buttonsOf(message).find((button) => button.label === "Again")?.actionId ?? "";

      await testBot.sender.click({ ...workspace, userId: "U061" }, message, againId);
      const isAgainDone = () =>
        fake()
          .messagesIn(workspace.channelId)
          .some((posted) => posted.ts !== message.ts && statusesOf(posted).at(-1) === "Done");
      await until(isAgainDone, { what: "the new generation" });
      const again = fake()
        .messagesIn(workspace.channelId)
        .find((posted) => posted.ts !== message.ts && statusesOf(posted).at(-1) === "Done") as FakeMessage;
      const [first, generation] = [
        await generationOf(imagehub, message),
        await generationOf(imagehub, again),
      ];
      // Simple mode names no seed: the same request as its equivalent command, with one.
      expect(generation.mode).toBe("advanced");
      expect(generation.prompt).toMatch(/^a blue tram, high quality realistic photo --ar 16:9 --seed \d+$/);
      expect((generation.metaData.chat as { userId: string }).userId).toBe("U061");
      const firstPreviewOf = async ({ images }: typeof first) =>
        Buffer.from(await (await imagehub.images.display("preview", images[0]?.id ?? "")).arrayBuffer());
      expect((await firstPreviewOf(generation)).equals(await firstPreviewOf(first))).toBe(false);
    });

    it("makes every update with the workspace's bot token", async () => {
      const workspace = aWorkspace();
      const message = await generate(workspace, "a quiet harbour");

      const updates = fake()
        .callsOf("chat.update")
        .filter((call) => call.args.ts === message.ts);
      expect(updates.length).toBeGreaterThan(0);
      expect(new Set(updates.map((call) => call.token))).toEqual(new Set([BOT_TOKEN]));
    });

    it("starts a generation from the modal", async () => {
      const workspace = aWorkspace();
      const { triggerId } = await testBot.sender.command(workspace, "/generate", "");
      await until(
        () =>
          fake()
            .callsOf("views.open")
            .some((call) => call.args.trigger_id === triggerId),
        {
          what: "the modal",
        },
      );
      const opened = fake()
        .callsOf("views.open")
        .find((call) => call.args.trigger_id === triggerId);
      const view = opened?.args.view as { callback_id: string; private_metadata: string };

      const response = await testBot.sender.submitModal(workspace, view, {
        prompt: { type: "plain_text_input", value: "a snowy owl" },
        format: { type: "static_select", selected_option: { value: "1:1" } },
        chaos: { type: "number_input", value: "20" },
        switches: { type: "checkboxes", selected_options: [] },
      });

      expect(response.status).toBe(200);
      expect(await response.text()).toBe("");
      const message = await statusMessageAt(fake(), workspace.channelId);
      expect(statusesOf(message).at(-1)).toBe("Done");
      expect(JSON.stringify(message.versions[0]?.blocks)).toContain("format 1:1 · chaos 20");
    });

    it("keeps a modal with a bad value open, the error under its input, and creates nothing", async () => {
      const workspace = aWorkspace();
      const view = {
        callback_id: "imagehub-generate",
        private_metadata: JSON.stringify({ channelId: workspace.channelId }),
      };
      const before = (await imagehub.generations.find()).filteredResults;

      const response = await testBot.sender.submitModal(workspace, view, {
        prompt: { type: "plain_text_input", value: "a snowy owl" },
        stylize: { type: "number_input", value: "5000" },
      });

      expect(await response.json()).toEqual({
        response_action: "errors",
        errors: { stylize: expect.stringContaining("1000") },
      });
      expect(fake().messagesIn(workspace.channelId)).toEqual([]);
      expect((await imagehub.generations.find()).filteredResults).toBe(before);
    });

    it("answers Buy 3 with the links and the credits left, debiting once after a double click", async () => {
      const workspace = aWorkspace("U010");
      const message = await generate(workspace, "a field of sunflowers");
      const buy3 = buttonsOf(message)[2]?.actionId ?? "";
      const creditsBefore = await purchaseCredits(imagehub);

      const clicks = await Promise.all([
        testBot.sender.click(workspace, message, buy3),
        testBot.sender.click(workspace, message, buy3),
      ]);

      expect(clicks.map((click) => click.response.status)).toEqual([200, 200]);
      const answers = () =>
        fake()
          .callsOf("chat.postEphemeral")
          .filter((call) => call.args.user === "U010" && call.args.channel === workspace.channelId);
      await until(() => answers().length === 2, { what: "both answers" });
      const texts = answers().map((call) => JSON.stringify(call.args.blocks));
      for (const text of texts) {
        expect(text).toContain("Image 3 is yours");
        expect(text).toMatch(/\|Full size>.*\|UHD>/);
      }
      expect(await purchaseCredits(imagehub)).toBe(creditsBefore - 1);
      expect(texts.some((text) => text.includes(`Purchase credits left: ${creditsBefore - 1}`))).toBe(true);
    });

    it("shows why a generation failed, and Retry runs it again from Queued to Done", async () => {
      const workspace = aWorkspace();
      const message = await generate(workspace, "a gore scene in the snow", "Failed");
      expect(statusesOf(message).at(-1)).toBe("Failed: description not accepted");
      const [retry] = buttonsOf(message);
      expect(retry?.label).toBe("Retry");
      const action = decodeAction(retry?.actionId ?? "");
      if (action?.kind !== "retry") throw new Error("not a retry button");
      // The person changes the description in imagehub (as its CLI or web app would), then clicks Retry.
      await imagehub.generations.update(action.generationId, { prompt: "a quiet scene in the snow" });
      const failedVersions = message.versions.length;

      const { response } = await testBot.sender.click(workspace, message, retry?.actionId ?? "");

      expect(response.status).toBe(200);
      await until(() => statusesOf(message).at(-1) === "Done", { what: "Done after the retry" });
      const afterRetry = statusesOf(message).slice(failedVersions);
      // Queued, unless the first step of the new attempt came while that update waited (the latest wins).
      expect(afterRetry[0]).toMatch(/^(Queued|Generating… [0-4]\/4)$/);
      expect(buttonsOf(message).map((button) => button.label)).toEqual(DONE_BUTTONS);
    });

    it("in a channel reached through chat:write.public, ends Done with Buy buttons and buys by direct message", async () => {
      const workspace = aWorkspace("U030");
      fake().channelsNotJoined.add(workspace.channelId);
      const message = await generate(workspace, "a quiet bay");

      expect(buttonsOf(message).map((button) => button.label)).toEqual(DONE_BUTTONS);
      await testBot.sender.click(workspace, message, buttonsOf(message)[0]?.actionId ?? "");
      const direct = () =>
        fake()
          .callsOf("chat.postMessage")
          .filter((call) => call.args.channel === "U030");
      await until(() => direct().length > 0, { what: "the links by direct message" });
      expect(JSON.stringify(direct()[0]?.args.blocks)).toContain("Image 1 is yours");
    });

    it("reads what the person typed (Slack escapes &, < and >), and never lets it mention or link", async () => {
      const workspace = aWorkspace();
      const typed = "fish & chips <!channel> <https://evil.example|click here>";
      const message = await generate(workspace, typed);

      expect((await generationOf(imagehub, message)).prompt).toBe(typed);
      const mrkdwn = message.versions.flatMap((version) => [
        version.text,
        ...version.blocks.flatMap((block) => [
          ...(block.text?.type === "mrkdwn" ? [block.text.text] : []),
          ...(block.elements ?? []).flatMap((element) =>
            element.type === "mrkdwn" ? [(element as unknown as { text: string }).text] : [],
          ),
        ]),
      ]);
      for (const text of mrkdwn) {
        expect(text).not.toContain("<!channel>");
        expect(text).not.toContain("<https://evil");
      }
    });

    it("tells the user to invite the bot to a channel it cannot post in, and creates nothing", async () => {
      const workspace = aWorkspace();
      fake().closedChannels.add(workspace.channelId);
      const before = (await imagehub.generations.find()).filteredResults;

      const { responseUrl } = await testBot.sender.command(workspace, "/generate", "a fox");

      await until(() => fake().responsesTo(responseUrl).length > 0, { what: "the answer" });
      expect(fake().responsesTo(responseUrl)[0]?.body).toMatchObject({
        response_type: "ephemeral",
        text: expect.stringContaining("/invite @imagehub"),
      });
      expect((await imagehub.generations.find()).filteredResults).toBe(before);
    });

    it("in a direct message between people, follows the generation in the requester's conversation with the bot", async () => {
      const workspace = { ...aWorkspace("U070"), channelId: "D0PEOPLE" };

      const { responseUrl } = await testBot.sender.command(workspace, "/generate", "a fox in a letter");

      await until(
        () =>
          fake()
            .directMessagesTo("U070")
            .some((message) => statusesOf(message).at(-1) === "Done"),
        { what: "the status message in the conversation with the bot, Done" },
      );
      expect(
        fake()
          .responsesTo(responseUrl)
          .map((response) => response.body.text),
      ).toEqual([]);
    });

    it("tells the requester by direct message when the channel is archived mid-run", async () => {
      const workspace = aWorkspace("U071");
      await testBot.sender.command(workspace, "/generate", "a fox in the archives");
      const message = await statusMessageAt(fake(), workspace.channelId, "Queued");
      fake().archivedChannels.add(workspace.channelId);
      try {
        await until(
          () =>
            fake()
              .directMessagesTo("U071")
              .some((direct) => /can no longer be updated \(is_archived\)/.test(direct.text)),
          { what: "the requester told" },
        );
        expect(fake().directMessagesTo("U071")).toHaveLength(1);
        expect(statusesOf(message).at(-1)).not.toBe("Done");
      } finally {
        fake().archivedChannels.delete(workspace.channelId);
      }
    });
  });
});
