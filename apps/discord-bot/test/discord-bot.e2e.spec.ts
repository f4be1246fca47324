import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { promisify } from "node:util";
import { GenerationStatus } from "@imagehub/domain";
import pg from "pg";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DONE_BUTTONS } from "../../../packages/chat-core/test/support/done-buttons.js";
import { closeServer } from "../../../tests/support/close-server.js";
import { uniqueName } from "../../../tests/support/environment.js";
import { startHttpProxy } from "../../../tests/support/http-proxy.js";
import { readJson } from "../../../tests/support/json.js";
import { freePort } from "../../../tests/support/start-command.mjs";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { type BotHarness, startBotHarness } from "./support/discord-bot-harness.js";
import { type FakeMessage, type Member, READ_MESSAGE_HISTORY } from "./support/fake-discord.js";

const API_ENV = {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_RELAY_INTERVAL_MS: "20",
  WEBHOOK_RETRY_SCHEDULE: "0.1,0.2,0.3,0.4,0.5,0.5,0.5",
  // Spaced images, so that the status message visibly goes through each step.
  PROCEDURAL_IMAGE_DELAY_MS: "150",
};
const ADMIN: Member = { id: "100000000000000001", username: "admin" };
const MEMBER: Member = { id: "100000000000000002", username: "member", permissions: "0" };
const BUYERS_ROLE = "100000000000000500";
const BUYER: Member = { id: "100000000000000004", username: "buyer", permissions: "0", roles: [BUYERS_ROLE] };
/** Discord's option types. */
const SUBCOMMAND = 1;
const STRING = 3;
const INTEGER = 4;
const BOOLEAN = 5;
const ROLE = 8;

const statusOf = (message: FakeMessage | undefined) =>
  message?.embeds[0]?.fields?.find((field) => field.name === "Status")?.value;
const buttonsOf = (message: FakeMessage | undefined) =>
  message?.components.flatMap((row) => row.components.map((button) => button.label)) ?? [];
const buttonId = (message: FakeMessage, label: string) =>
  message.components.flatMap((row) => row.components).find((button) => button.label === label)?.custom_id ??
  "";
/** The mean colour of a JPEG (or of a region of it). */
async function meanColour(
  jpeg: Buffer,
  region?: { left: number; top: number; width: number; height: number },
) {
  const cropped = region ? await sharp(jpeg).extract(region).toBuffer() : jpeg;
  const { channels } = await sharp(cropped).stats();
  return channels.slice(0, 3).map((channel) => channel.mean);
}

/** The completion notices of a status message: new messages that link it. */
const noticesOf = (bot: BotHarness, message: FakeMessage) =>
  [...bot.fake.messages.values()].filter(
    (candidate) =>
      candidate.id !== message.id && candidate.content.endsWith(`/${message.channel_id}/${message.id}`),
  );

/** A delivery signed with a key imagehub never gave out. */
const forgedDelivery = (url: string) =>
  fetch(url, {
    method: "POST",
    headers: {
      "webhook-id": "msg_forged",
      "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
      "webhook-signature": "v1,Zm9yZ2VkIHNpZ25hdHVyZQ==",
    },
    body: JSON.stringify({ id: "msg_forged", api_version: 1, created: 0, type: "test", data: {} }),
  });

describe("the Discord bot", () => {
  let api: TestApi;
  let harness: BotHarness;
  let apiKey: string;

  const connect = (key: string, member = ADMIN) =>
    harness.fake.runCommand(
      "imagehub",
      [{ name: "connect", type: SUBCOMMAND, options: [{ name: "key", type: STRING, value: key }] }],
      member,
    );
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
  });

  afterAll(async () => {
    await harness?.close();
    await api?.close();
  });

  it("asks to connect first when the server has no key", async () => {
    const interaction = harness.fake.runCommand(
      "generate",
      [{ name: "prompt", type: STRING, value: "a lake" }],
      ADMIN,
    );
    expect(await answerText(interaction)).toMatch(/not connected to imagehub yet.*\/imagehub connect/);
    expect(harness.fake.lastAnswerTo(interaction)?.flags).toBe(64);
  });

  it("refuses to connect a member without Manage Server, and a key imagehub refuses", async () => {
    expect(await answerText(connect(apiKey, MEMBER))).toMatch(/Manage Server/);
    expect(await answerText(connect("ih_not-a-real-key"))).toMatch(/refused that API key/);
    expect(await harness.bot.core.connections.isConnected(harness.fake.guildId)).toBe(false);
  });

  it("connects with a key: checked, stored encrypted, and the bot's webhook subscribed", async () => {
    expect(await answerText(connect(apiKey))).toMatch(
      /Connected to the imagehub account of user1@example\.test/,
    );
    const { webhooks } = await readJson(await api.request("/v1/api-keys/webhooks", { apiKey }));
    expect(webhooks).toHaveLength(1);
    expect(webhooks[0].url).toBe(harness.bot.core.connections.webhookUrl(harness.fake.guildId));
    const database = new pg.Client({ connectionString: api.database.url });
    await database.connect();
    const { rows } = await database.query(
      `SELECT key, value::text AS value FROM ${harness.env.BOT_DATABASE_SCHEMA}.bot_records WHERE collection = 'teams'`,
    );
    await database.end();
    expect(rows.map((row) => row.key)).toEqual([harness.fake.guildId]);
    expect(rows[0].value).not.toContain(apiKey);
  });

  it("shows the account and its credits", async () => {
    const interaction = harness.fake.runCommand("imagehub", [{ name: "status", type: SUBCOMMAND }], MEMBER);
    const answer = await answerText(interaction);
    expect(answer).toMatch(/user1@example\.test \(this server's key/);
    expect(answer).toMatch(/f_images: 10 of 10/);
  });

  it("refuses invalid options privately, naming the problem, and creates nothing", async () => {
    const advanced = harness.fake.runCommand(
      "generate-advanced",
      [{ name: "command", type: STRING, value: "a castle --ar 16:9 --bogus 3" }],
      ADMIN,
    );
    expect(await answerText(advanced)).toMatch(/command: .*--bogus/);
    const flagsInSimple = harness.fake.runCommand(
      "generate",
      [{ name: "prompt", type: STRING, value: "a castle --ar 16:9" }],
      ADMIN,
    );
    expect(await answerText(flagsInSimple)).toMatch(/prompt: .*--ar/);
    expect(harness.fake.answerTo(flagsInSimple)?.flags).toBe(64);
    const { filteredResults } = await readJson(await api.request("/v1/image-generations", { apiKey }));
    expect(filteredResults).toBe(0);
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
        expect(answer).toMatch(new RegExp(`Credits left: ${before - 1}$`));
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

  it("turns its team's webhook on again when it starts", async () => {
    const database = new pg.Client({ connectionString: api.database.url });
    await database.connect();
    await database.query("UPDATE webhooks SET disabled_at = now(), disabled_reason = 'the bot was down'");
    await database.end();

    await harness.restart();

    const { webhooks } = await readJson(await api.request("/v1/api-keys/webhooks", { apiKey }));
    expect(webhooks.map((webhook: { disabled: boolean }) => webhook.disabled)).toEqual([false]);
  });

  it("disconnects: the key and its webhook are removed", async () => {
    const interaction = harness.fake.runCommand(
      "imagehub",
      [{ name: "disconnect", type: SUBCOMMAND }],
      ADMIN,
    );
    expect(await answerText(interaction)).toMatch(/^Disconnected/);
    const { webhooks } = await readJson(await api.request("/v1/api-keys/webhooks", { apiKey }));
    expect(webhooks).toHaveLength(0);
    expect(await harness.bot.core.connections.isConnected(harness.fake.guildId)).toBe(false);
  });
  it("tells imagehub a removed connection's webhook address is gone (410)", async () => {
    const response = await forgedDelivery(harness.bot.core.connections.webhookUrl(harness.fake.guildId));
    expect(response.status).toBe(410);
  });

  describe("with the bot's default key and tight limits", () => {
    let limited: BotHarness;

    beforeAll(async () => {
      limited = await startBotHarness(api.baseUrl, {
        IMAGEHUB_API_KEY: apiKey,
        BOT_DEFAULT_KEY_TEAMS: "900000000000000010",
        BOT_USER_COOLDOWN_SECONDS: "3600",
        BOT_MAX_RUNNING_PER_TEAM: "1",
      });
    });

    afterAll(async () => {
      await limited?.close();
    });

    const run = (member: Member, prompt: string) =>
      limited.fake.runCommand("generate", [{ name: "prompt", type: STRING, value: prompt }], member);
    const answerOf = async (interactionId: string) => {
      await until(() => (limited.fake.lastAnswerTo(interactionId)?.content ?? "") !== "", {
        what: "an answer",
      });
      return limited.fake.lastAnswerTo(interactionId)?.content ?? "";
    };

    it("refuses a webhook delivery whose signature is wrong", async () => {
      const response = await forgedDelivery(limited.bot.core.connections.webhookUrl("default"));
      expect(response.status).toBe(401);
    });

    let windmill: FakeMessage;

    it("serves a server that never connected, with the default key's own webhook", async () => {
      const { webhooks } = await readJson(await api.request("/v1/api-keys/webhooks", { apiKey }));
      expect(webhooks.map((webhook: { url: string }) => webhook.url)).toContain(
        limited.bot.core.connections.webhookUrl("default"),
      );
      const started = run(ADMIN, "a windmill");
      await until(() => statusOf(limited.fake.answerTo(started)) === "Done", { what: "the generation" });
      windmill = limited.fake.answerTo(started) as FakeMessage;
    });

    it("holds Again to the clicker's cooldown, like /generate", async () => {
      const click = limited.fake.clickButton(windmill.id, buttonId(windmill, "Again"), ADMIN);
      expect(await answerOf(click)).toMatch(
        /^⚠️ You can start another generation in \d+ s \(one every 3600 s/,
      );
      expect(limited.fake.lastAnswerTo(click)?.flags).toBe(64);
      // The public answer the click was deferred with is gone: one status message in the channel.
      expect(limited.fake.answerTo(click)).toBeUndefined();
    });

    it("holds Retry to the clicker's cooldown, like /generate", async () => {
      const someone: Member = { id: "100000000000000005", username: "someone" };
      const started = run(someone, "a gore scene in a windmill");
      await until(() => /^Failed/.test(statusOf(limited.fake.answerTo(started)) ?? ""), {
        what: "the failure",
      });
      const failed = limited.fake.answerTo(started) as FakeMessage;
      const click = limited.fake.clickButton(failed.id, buttonId(failed, "Retry"), someone);
      expect(await answerOf(click)).toMatch(
        /^⚠️ You can start another generation in \d+ s \(one every 3600 s/,
      );
      expect(limited.fake.lastAnswerTo(click)?.flags).toBe(64);
      expect(statusOf(limited.fake.messages.get(failed.id))).toMatch(/^Failed/);
    });

    it("explains a person's cooldown, and the team's limit of running generations", async () => {
      expect(await answerOf(run(ADMIN, "a second windmill"))).toMatch(
        /^⚠️ You can start another generation in \d+ s \(one every 3600 s per person\)/,
      );
      run(MEMBER, "a slow river");
      // Imagehub's word, not the message's: edits wait on the channel's budget, the generation does not.
      const isRiverRunning = async () => {
        const { prints } = await readJson(await api.request("/v1/image-generations?limit=100", { apiKey }));
        return prints.some(
          (print: { prompt: string; status: number }) =>
            print.prompt === "a slow river" && print.status < GenerationStatus.Done,
        );
      };
      await until(isRiverRunning, { what: "the first generation to be queued or running" });
      const other: Member = { id: "100000000000000003", username: "other" };
      expect(await answerOf(run(other, "a third windmill"))).toMatch(
        /already queued or running \(at most 1 at once\)/,
      );
    });
  });

  describe("20 people running /generate at the same instant, with a limit of 3 running", () => {
    let crowd: BotHarness;
    let teamKey: string;
    const members = Array.from({ length: 20 }, (_, index) => ({
      id: String(200000000000000000n + BigInt(index)),
      username: `member${index}`,
    }));
    const outcomeOf = (interactionId: string) => {
      const answer = crowd.fake.lastAnswerTo(interactionId);
      if (answer?.flags === 64) return answer.content;
      return statusOf(crowd.fake.answerTo(interactionId));
    };

    beforeAll(async () => {
      ({ apiKey: teamKey } = await api.createAccount({ credits: { f_images_print: 50, f_images: 5 } }));
      crowd = await startBotHarness(api.baseUrl, {
        BOT_DATABASE_URL: api.database.url,
        IMAGEHUB_API_KEY: teamKey,
        BOT_DEFAULT_KEY_TEAMS: "900000000000000010",
        BOT_MAX_RUNNING_PER_TEAM: "3",
      });
    });
    afterAll(async () => {
      await crowd?.close();
    });

    it("starts exactly 3; the 17 others hear the limit; the places are free again once they end", async () => {
      const earlier = crowd.fake.runCommand(
        "generate",
        [{ name: "prompt", type: STRING, value: "a dune" }],
        ADMIN,
      );
      await until(() => statusOf(crowd.fake.answerTo(earlier)) === "Done", { what: "an earlier generation" });
      const done = crowd.fake.answerTo(earlier) as FakeMessage;

      // The 3 stay queued while the 20 commands are answered: a generation that ended meanwhile would rightly
      // free its place for one of the 17.
      const releaseGenerations = await api.holdGenerations();
      let started: string[];
      try {
        // Each command checks and takes a place as it arrives, concurrently with the others (shared PostgreSQL state).
        const interactions = members.map((member) =>
          crowd.fake.runCommand(
            "generate",
            [{ name: "prompt", type: STRING, value: `a dune at ${member.username}` }],
            member,
          ),
        );
        await until(() => interactions.every((interaction) => outcomeOf(interaction) !== undefined), {
          what: "an answer to every command",
        });
        started = interactions.filter((interaction) => crowd.fake.answerTo(interaction)?.flags === 0);
        const refusals = interactions.map(outcomeOf).filter((outcome) => outcome?.startsWith("⚠️"));
        expect(started).toHaveLength(3);
        expect(refusals).toHaveLength(17);
        for (const refusal of refusals)
          expect(refusal).toMatch(/already queued or running \(at most 3 at once\)/);
        const { filteredResults } = await readJson(
          await api.request("/v1/image-generations", { apiKey: teamKey }),
        );
        expect(filteredResults).toBe(4);
      } finally {
        await releaseGenerations();
      }

      await until(
        () => started.every((interaction) => statusOf(crowd.fake.answerTo(interaction)) === "Done"),
        { what: "the 3 to finish" },
      );
      await until(async () => (await crowd.bot.core.usage.runningCount(crowd.fake.guildId)) === 0, {
        what: "their places given back",
      });
      const again = crowd.fake.clickButton(done.id, buttonId(done, "Again"), ADMIN);
      await until(
        () => crowd.fake.answerTo(again)?.id !== done.id && statusOf(crowd.fake.answerTo(again)) === "Done",
        { what: "Again" },
      );
    }, 120_000);
  });

  it("defers /generate before calling imagehub, so a slow imagehub does not miss Discord's deadline", async () => {
    const slowImagehub = await startHttpProxy(() => Number(new URL(api.baseUrl).port), { delayMs: 350 });
    const { apiKey: teamKey } = await api.createAccount();
    const slow = await startBotHarness(slowImagehub.url, {
      IMAGEHUB_API_KEY: teamKey,
      BOT_DEFAULT_KEY_TEAMS: "900000000000000010",
    });
    try {
      slow.fake.interactionDeadlineMs = 300;
      const interaction = slow.fake.runCommand(
        "generate",
        [{ name: "prompt", type: STRING, value: "a windmill in the rain" }],
        ADMIN,
      );
      await until(() => /^(Generating|Done)/.test(statusOf(slow.fake.answerTo(interaction)) ?? ""), {
        what: "the generation to run",
      });
      expect(
        slow.fake.calls.filter((call) => call.path.includes("/callback")).map((call) => call.body?.type),
      ).toEqual([5]);
    } finally {
      await slow.close();
      await closeServer(slowImagehub.server);
    }
  });

  describe("two replicas behind one address, sharing their state in PostgreSQL", () => {
    let one: BotHarness;
    let two: BotHarness;
    let proxy: Server;
    const served = [0, 0];

    beforeAll(async () => {
      const proxyPort = await freePort();
      const shared = {
        BOT_DATABASE_URL: api.database.url,
        BOT_DATABASE_SCHEMA: uniqueName("discord_replicas"),
        BOT_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
        BOT_PUBLIC_URL: `http://127.0.0.1:${proxyPort}`,
      };
      one = await startBotHarness(api.baseUrl, shared);
      two = await startBotHarness(api.baseUrl, shared, { fake: one.fake });
      // A load balancer: imagehub's deliveries go to each replica in turn.
      ({ server: proxy } = await startHttpProxy(
        () => {
          const replica = (served[0] ?? 0) <= (served[1] ?? 0) ? 0 : 1;
          served[replica] = (served[replica] ?? 0) + 1;
          return (replica === 0 ? one : two).bot.port;
        },
        { port: proxyPort },
      ));
    });
    afterAll(async () => {
      await two?.close();
      await one?.close();
      if (proxy) await closeServer(proxy);
    });

    it("shows every step once and in order, whichever replica received it", async () => {
      const { apiKey: teamKey } = await api.createAccount();
      const connecting = one.fake.runCommand(
        "imagehub",
        [{ name: "connect", type: SUBCOMMAND, options: [{ name: "key", type: STRING, value: teamKey }] }],
        ADMIN,
      );
      await until(() => /^Connected/.test(one.fake.answerTo(connecting)?.content ?? ""), {
        what: "connected",
      });

      const interaction = one.fake.runCommand(
        "generate",
        [{ name: "prompt", type: STRING, value: "a lighthouse at night" }],
        ADMIN,
      );
      await until(() => statusOf(one.fake.answerTo(interaction)) === "Done", { what: "Done" });

      expect(served.every((count) => count > 0)).toBe(true);
      const history = one.fake.answerTo(interaction)?.statusHistory ?? [];
      expect(new Set(history).size).toBe(history.length);
      // Both replicas' gateway sessions received each interaction; one answered it, once.
      const callbacks = one.fake.calls.filter((call) => call.path.endsWith("/callback"));
      expect(callbacks.map((call) => call.status)).toEqual([204, 204]);
      const { webhooks } = await readJson(await api.request("/v1/api-keys/webhooks", { apiKey: teamKey }));
      expect(webhooks.map((webhook: { disabled: boolean }) => webhook.disabled)).toEqual([false]);
    });
  });

  describe("the operator's default key", () => {
    const refusalOf = async (bot: BotHarness) => {
      const interaction = bot.fake.runCommand(
        "generate",
        [{ name: "prompt", type: STRING, value: "a dune" }],
        ADMIN,
      );
      await until(() => (bot.fake.lastAnswerTo(interaction)?.content ?? "") !== "", { what: "the answer" });
      return bot.fake.lastAnswerTo(interaction)?.content;
    };

    it("serves no server the operator did not opt in", async () => {
      const notOptedIn = await startBotHarness(api.baseUrl, { IMAGEHUB_API_KEY: apiKey });
      try {
        expect(await refusalOf(notOptedIn)).toMatch(/not connected to imagehub yet/);
      } finally {
        await notOptedIn.close();
      }
    });

    it("serves no server at all when anyone may invite the bot (Public Bot)", async () => {
      const publicBot = await startBotHarness(
        api.baseUrl,
        { IMAGEHUB_API_KEY: apiKey, BOT_DEFAULT_KEY_TEAMS: "900000000000000010" },
        { isBotPublic: true },
      );
      try {
        expect(await refusalOf(publicBot)).toMatch(/not connected to imagehub yet/);
      } finally {
        await publicBot.close();
      }
    });
  });

  it("registers its commands with npm run discord:register", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["apps/discord-bot/dist/register.js"], {
      env: {
        ...process.env,
        DISCORD_TOKEN: "test-token",
        DISCORD_APPLICATION_ID: harness.fake.applicationId,
        DISCORD_GUILD_ID: harness.fake.guildId,
        DISCORD_API_URL: harness.fake.apiUrl,
      },
    });
    expect(stdout).toMatch(/registered \/generate, \/generate-advanced, \/imagehub in server/);
    const registered = harness.fake.registeredCommands.get(harness.fake.guildId) as {
      name: string;
      options: { name: string; type: number }[];
    }[];
    expect(registered.map((command) => command.name)).toEqual(["generate", "generate-advanced", "imagehub"]);
    expect(registered[0]?.options.map((option) => option.name)).toEqual([
      "prompt",
      "format",
      "weather",
      "time",
      "template",
      "chaos",
      "stylize",
      "camera",
      "avoid",
      "optimize",
      "fast",
    ]);
  });
});
