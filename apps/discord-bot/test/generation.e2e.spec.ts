import { GenerationStatus } from "@imagehub/domain";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DONE_BUTTONS } from "../../../packages/chat-core/test/support/done-buttons.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { type BotHarness, startBotHarness } from "./support/discord-bot-harness.js";
import { type FakeMessage, READ_MESSAGE_HISTORY } from "./support/fake-discord.js";
import {
  ADMIN,
  WEBHOOKS_AT_ONCE as API_ENV,
  BOOLEAN,
  BUYER,
  BUYERS_ROLE,
  buttonId,
  buttonsOf,
  INTEGER,
  MEMBER,
  noticesOf,
  ROLE,
  STRING,
  SUBCOMMAND,
  statusOf,
} from "./support/fixtures.js";

/** The mean colour of a JPEG (or of a region of it). */
async function meanColour(
  jpeg: Buffer,
  region?: { left: number; top: number; width: number; height: number },
) {
  const cropped = region ? await sharp(jpeg).extract(region).toBuffer() : jpeg;
  const { channels } = await sharp(cropped).stats();
  return channels.slice(0, 3).map((channel) => channel.mean);
}

/** A generation from /generate to Done in a connected server, its buttons, its failures and restarts. */
describe("the Discord bot's status message", () => {
  let api: TestApi;
  let harness: BotHarness;
  let apiKey: string;

  /** `/imagehub settings` with one option, run by a member. */
  const changeSettings = (option: { name: string; type: number; value: unknown }, member = ADMIN) =>
    harness.fake.runCommand("imagehub", [{ name: "settings", type: SUBCOMMAND, options: [option] }], member);
  const answerText = async (interactionId: string) => {
    await until(() => (harness.fake.lastAnswerTo(interactionId)?.content ?? "") !== "", {
      what: "the answer",
    });
    return harness.fake.lastAnswerTo(interactionId)?.content ?? "";
  };
  /** Runs /generate and answers the status message once the generation is in the given phase. */
  const generate = async (options: { name: string; type: number; value: unknown }[], finalStatus: RegExp) => {
    const interaction = harness.fake.runCommand("generate", options, ADMIN);
    await until(() => finalStatus.test(statusOf(harness.fake.answerTo(interaction)) ?? ""), {
      what: `a status matching ${finalStatus}`,
    });
    return harness.fake.answerTo(interaction) as FakeMessage;
  };
  const purchaseCredits = async () => {
    const { credits } = await readJson(await api.request("/v1/credit", { apiKey }));
    return credits.find((credit: { type: string }) => credit.type === "f_images").credit as number;
  };

  beforeAll(async () => {
    api = await startTestApi({ env: API_ENV });
    ({ apiKey } = await api.createAccount({ credits: { f_images: 10, f_images_print: 20 } }));
    harness = await startBotHarness(api.baseUrl, { BOT_DATABASE_URL: api.database.url });
    await harness.bot.core.connections.connect(harness.fake.guildId, apiKey, ADMIN.id);
  });

  afterAll(async () => {
    await harness?.close();
    await api?.close();
  });

  describe("a generation", () => {
    let final: FakeMessage;
    /** The new status message a click on `final` answers with (until then, its answer is `final`), once Done. */
    const newStatusMessageDone = async (click: string) => {
      const isNewDone = () =>
        harness.fake.answerTo(click)?.id !== final.id && statusOf(harness.fake.answerTo(click)) === "Done";
      await until(isNewDone, { what: "the new generation" });
      return harness.fake.answerTo(click) as FakeMessage;
    };

    beforeAll(async () => {
      final = await generate(
        [
          { name: "prompt", type: STRING, value: "a lighthouse on a cliff" },
          { name: "format", type: STRING, value: "16:9" },
          { name: "weather", type: STRING, value: "snowy" },
          { name: "chaos", type: INTEGER, value: 20 },
          { name: "avoid", type: STRING, value: "text, logos" },
          { name: "optimize", type: BOOLEAN, value: true },
        ],
        /^Done$/,
      );
    });

    it("answers at once with a public status message, then edits it through each step", () => {
      expect(final.flags).toBe(0);
      expect(final.embeds[0]?.title).toBe("a lighthouse on a cliff");
      const parameters = final.embeds[0]?.fields?.find((field) => field.name === "Parameters")?.value;
      expect(parameters).toBe("format 16:9 · weather snowy · chaos 20 · avoid: text, logos · optimized");
      const history = final.statusHistory;
      expect(history[0]).toBe("Queued");
      expect(history.at(-1)).toBe("Done");
      expect(history.some((status) => /^Generating… [0-4]\/4$/.test(status))).toBe(true);
      // Events may arrive out of order; the message never goes back.
      const steps = history.map((status) =>
        status === "Done" ? 9 : Number(/(\d)\/4/.exec(status)?.[1] ?? -1),
      );
      expect(steps).toEqual([...steps].sort((a, b) => a - b));
    });

    it("ends with one 2×2 grid of the 4 previews in the embed, and Buy 1 to 4, Show all 4, Again", async () => {
      expect(final.attachments.map((attachment) => attachment.filename)).toEqual(["images.jpg"]);
      const grid = final.attachments[0]?.data as Buffer;
      const { format, width = 0, height = 0 } = await sharp(grid).metadata();
      expect(format).toBe("jpeg");
      expect(Math.max(width, height)).toBe(1024);
      expect(width / height).toBeCloseTo(16 / 9, 1);
      expect((final.embeds[0] as { image?: { url: string } }).image?.url).toBe("attachment://images.jpg");
      // Each quadrant is its preview: image 1 top left … image 4 bottom right.
      const generationId = buttonId(final, "Again").split(":").at(-1);
      const generation = await readJson(
        await api.request(`/v1/image-generations/${generationId}`, { apiKey }),
      );
      for (const [index, image] of (generation.images as { url: string }[]).entries()) {
        const url = new URL(image.url);
        const preview = Buffer.from(await (await api.request(url.pathname + url.search)).arrayBuffer());
        const quadrant = {
          left: (index % 2) * (width / 2),
          top: Math.floor(index / 2) * (height / 2),
          width: width / 2,
          height: height / 2,
        };
        const [shown, own] = [await meanColour(grid, quadrant), await meanColour(preview)];
        for (const [channel, value] of shown.entries())
          expect(Math.abs(value - (own[channel] ?? 0))).toBeLessThan(6);
      }
      expect(buttonsOf(final)).toEqual(DONE_BUTTONS);
    });

    it("tells the requester in one new message that pings them alone, linking the status message", () => {
      const notices = noticesOf(harness, final);
      expect(notices.map((notice) => notice.content)).toEqual([
        `<@${ADMIN.id}> your images of “a lighthouse on a cliff” are ready: https://discord.com/channels/${harness.fake.guildId}/${final.channel_id}/${final.id}`,
      ]);
      expect(notices[0]?.allowed_mentions).toEqual({ parse: [], users: [ADMIN.id] });
      // Not a reply: a reply needs Read Message History, which the bot needs for nothing else.
      expect(notices[0]?.message_reference).toBeUndefined();
    });

    it("shows the 4 images one by one to whoever clicks Show all 4, alone", async () => {
      const click = harness.fake.clickButton(final.id, buttonId(final, "Show all 4"), MEMBER);
      await until(() => (harness.fake.answerTo(click)?.attachments.length ?? 0) === 4, {
        what: "the 4 images",
      });
      const answer = harness.fake.answerTo(click) as FakeMessage;
      expect(answer.flags).toBe(64);
      expect(answer.attachments.map((attachment) => attachment.filename)).toEqual([
        "image-1.jpg",
        "image-2.jpg",
        "image-3.jpg",
        "image-4.jpg",
      ]);
      const descriptions = harness.fake.calls
        .filter((call) => call.fileNames.includes("image-1.jpg"))
        .flatMap((call) => (call.body?.attachments as { description: string }[]) ?? [])
        .map((attachment) => attachment.description);
      expect(descriptions).toContain("Image 1 of “a lighthouse on a cliff”");
    });

    it("refuses Buy to a member who is neither the requester nor an admin, and debits nothing", async () => {
      const before = await purchaseCredits();
      const click = harness.fake.clickButton(final.id, buttonId(final, "Buy 1"), MEMBER);
      expect(await answerText(click)).toMatch(
        /^⚠️ Only the person who asked for these images, the admins may buy/,
      );
      expect(harness.fake.answerTo(click)?.flags).toBe(64);
      expect(await purchaseCredits()).toBe(before);
    });

    it("lets an admin choose a role whose members may buy; members without Manage Server may not", async () => {
      const member = changeSettings({ name: "buyers", type: ROLE, value: BUYERS_ROLE }, MEMBER);
      expect(await answerText(member)).toMatch(/Manage Server/);
      const admin = changeSettings({ name: "buyers", type: ROLE, value: BUYERS_ROLE });
      expect(await answerText(admin)).toBe(
        `Settings saved.\n• Who may buy: the person who asked for the images, the admins and the role <@&${BUYERS_ROLE}>.\n• Daily purchase cap: none.\n• Generations per person: no daily quota.`,
      );
    });

    it("buys with Buy 2 for a member of that role: private links and credits, debited once after a double click", async () => {
      const before = await purchaseCredits();
      const buyButton = final.components[0]?.components[1]?.custom_id as string;
      const clicks = [
        harness.fake.clickButton(final.id, buyButton, BUYER),
        harness.fake.clickButton(final.id, buyButton, BUYER),
      ];
      const answers = await Promise.all(clicks.map(answerText));
      for (const [index, answer] of answers.entries()) {
        expect(harness.fake.answerTo(clicks[index] as string)?.flags).toBe(64);
        expect(answer).toMatch(
          /^Image 2 is yours: \[Full size\]\(http.+\) · \[Upscale 2×\]\(http.+\) · \[UHD\]\(http.+\)/,
        );
        expect(answer).toMatch(new RegExp(`Purchase credits left: ${before - 1}$`));
      }
      expect(await purchaseCredits()).toBe(before - 1);
      const link = /\[Full size\]\((http[^)]+)\)/.exec(answers[0] as string)?.[1] as string;
      // The test API's public address is not its real one: the same path and signature, asked of the API.
      const file = await api.request(new URL(link).pathname + new URL(link).search);
      expect(file.status).toBe(200);
      expect((await sharp(Buffer.from(await file.arrayBuffer())).metadata()).format).toBe("jpeg");
    });

    it("holds the team to its daily cap, an image bought already today answering again for nothing", async () => {
      const setCap = changeSettings({ name: "daily-cap", type: INTEGER, value: 1 });
      expect(await answerText(setCap)).toMatch(/Daily purchase cap: 1 image a day \(UTC\)/);
      const before = await purchaseCredits();
      const other = harness.fake.clickButton(final.id, buttonId(final, "Buy 3"), ADMIN);
      expect(await answerText(other)).toMatch(/^⚠️ This team has bought its 1 image for today/);
      const same = harness.fake.clickButton(final.id, buttonId(final, "Buy 2"), ADMIN);
      expect(await answerText(same)).toMatch(/^Image 2 is yours: /);
      expect(await purchaseCredits()).toBe(before);
      const noCap = changeSettings({ name: "no-cap", type: BOOLEAN, value: true });
      expect(await answerText(noCap)).toMatch(/Daily purchase cap: none/);
    });

    it("starts a new variation with Again, in a new status message: a new seed, so new images", async () => {
      const again = await newStatusMessageDone(
        harness.fake.clickButton(final.id, buttonId(final, "Again"), MEMBER),
      );
      expect(again.id).not.toBe(final.id);
      expect(again.flags).toBe(0);
      expect(again.embeds[0]?.title).toBe("a lighthouse on a cliff");
      // Simple mode names no seed: the same request as its equivalent command, with one.
      expect(again.embeds[0]?.fields?.find((field) => field.name === "Parameters")?.value).toBe("advanced");
      expect(again.embeds[0]?.description).toMatch(/--ar 16:9 --chaos 20 --no text, logos --seed \d+$/);
      expect(again.attachments[0]?.data).not.toEqual(final.attachments[0]?.data);
      expect(buttonId(again, "Again")).not.toBe(buttonId(final, "Again"));
      // The notice goes to whoever clicked Again.
      await until(() => noticesOf(harness, again).length > 0, { what: "the notice" });
      expect(noticesOf(harness, again)[0]?.content).toMatch(new RegExp(`^<@${MEMBER.id}> your images`));
    });

    it("varies image 2 with V2, in a new status message: the same request, image 2 as its image prompt", async () => {
      const variation = await newStatusMessageDone(
        harness.fake.clickButton(final.id, buttonId(final, "V2"), MEMBER),
      );
      const { prints } = await readJson(await api.request("/v1/image-generations?limit=100", { apiKey }));
      const generationOfMessage = (message: FakeMessage) =>
        prints.find(
          (print: { metaData: { chat?: { messageId?: string } } }) =>
            print.metaData.chat?.messageId === message.id,
        ) as { params: { name: string; value: string }[]; images: { url: string }[]; prompt: string };
      const [original, varied] = [generationOfMessage(final), generationOfMessage(variation)];
      expect(varied.prompt).toBe(original.prompt);
      expect(varied.params).toContainEqual({ name: "fromImageUrl", value: original.images[1]?.url });
      expect(varied.params.filter((param) => param.name !== "fromImageUrl")).toEqual(original.params);
      expect(buttonsOf(variation)).toEqual(DONE_BUTTONS);
    });

    it("still buys after a bot restart", async () => {
      await harness.restart();
      const click = harness.fake.clickButton(
        final.id,
        final.components[0]?.components[0]?.custom_id as string,
        ADMIN,
      );
      expect(await answerText(click)).toMatch(/^Image 1 is yours: /);
    });
  });

  it("shows a moderation failure with its reason, and Retry runs it again", async () => {
    const failed = await generate(
      [{ name: "prompt", type: STRING, value: "a gore scene in a castle" }],
      /^Failed/,
    );
    expect(statusOf(failed)).toMatch(/^Failed: .*not accepted/);
    expect(buttonsOf(failed)).toEqual(["Retry"]);
    const retryButton = failed.components[0]?.components[0]?.custom_id ?? "";
    const [, generationId] = retryButton.split(":retry:");
    // The team fixes the description (here through the API), then retries from the message.
    await api.request(`/v1/image-generations/${generationId}`, {
      method: "PUT",
      apiKey,
      json: { prompt: "a quiet castle" },
    });
    harness.fake.clickButton(failed.id, retryButton, ADMIN);
    await until(() => statusOf(harness.fake.messages.get(failed.id)) === "Done", {
      what: "the retried generation",
    });
    const done = harness.fake.messages.get(failed.id) as FakeMessage;
    expect(done.attachments.map((attachment) => attachment.filename)).toEqual(["images.jpg"]);
    expect(buttonsOf(done)).toEqual(DONE_BUTTONS);
  });

  it("brings a message up to date after a restart mid-generation, and never moves it backwards", async () => {
    const interaction = harness.fake.runCommand(
      "generate",
      [{ name: "prompt", type: STRING, value: "a slow tide" }],
      ADMIN,
    );
    await until(() => /^Generating/.test(statusOf(harness.fake.answerTo(interaction)) ?? ""), {
      what: "the generation to run",
      timeoutMs: 8000,
    });
    const messageId = harness.fake.answerTo(interaction)?.id;
    await harness.stopBot();
    const generationDone = async () => {
      const { prints } = await readJson(await api.request("/v1/image-generations?limit=100", { apiKey }));
      const print = prints.find(
        (candidate: { metaData: { chat?: { messageId: string } } }) =>
          candidate.metaData.chat?.messageId === messageId,
      );
      return print?.status === GenerationStatus.Done;
    };
    // The bot is down while the generation finishes: imagehub's deliveries fail meanwhile.
    await until(generationDone, { what: "the generation to finish while the bot is down", timeoutMs: 8000 });
    // imagehub gives up what it could not deliver (8 attempts on this schedule): only the bot's own start
    // can bring the message up to date.
    const hasGivenUp = async () => {
      const { webhooks } = await readJson(await api.request("/v1/api-keys/webhooks", { apiKey }));
      const { attempts } = await readJson(
        await api.request(`/v1/api-keys/webhook/${webhooks[0]?.id}/attempts`, { apiKey }),
      );
      const ids = (list: { eventId: string }[]) => new Set(list.map((attempt) => attempt.eventId));
      const failed = ids(attempts.filter((attempt: { error?: string }) => attempt.error !== undefined));
      const lastTried = ids(attempts.filter((attempt: { attempt: number }) => attempt.attempt === 8));
      return failed.size > 0 && [...failed].every((eventId) => lastTried.has(eventId));
    };
    await until(hasGivenUp, { what: "imagehub to give up its deliveries" });

    await harness.startBot();

    await until(() => statusOf(harness.fake.messages.get(messageId ?? "")) === "Done", {
      what: "Done after the restart",
      timeoutMs: 8000,
    });
    const history = harness.fake.messages.get(messageId ?? "")?.statusHistory ?? [];
    const steps = history.map((status) =>
      status === "Done" ? 9 : Number(/(\d)\/4/.exec(status)?.[1] ?? -1),
    );
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(buttonsOf(harness.fake.messages.get(messageId ?? ""))).toEqual(DONE_BUTTONS);
  });

  it("tells the requester where the bot may not read the message history (no reply needed)", async () => {
    harness.fake.channelPermissionsDenied.set(harness.fake.otherChannelId, READ_MESSAGE_HISTORY);
    try {
      const interaction = harness.fake.runCommand(
        "generate",
        [{ name: "prompt", type: STRING, value: "a quiet harbour" }],
        ADMIN,
        harness.fake.otherChannelId,
      );
      await until(() => statusOf(harness.fake.answerTo(interaction)) === "Done", { what: "Done" });
      const message = harness.fake.answerTo(interaction) as FakeMessage;
      await until(() => noticesOf(harness, message).length === 1, { what: "the notice" });
      expect(harness.fake.calls.filter((call) => call.status === 403)).toEqual([]);
    } finally {
      harness.fake.channelPermissionsDenied.clear();
    }
  });
});
