import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ChatTarget,
  FormRefusedError,
  JsonFileStore,
  MessageGoneError,
  PermissionMissingError,
  queuedView,
} from "@imagehub/chat-core";
import { GenerationStatus } from "@imagehub/domain";
import { webApi } from "@slack/bolt";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DONE_BUTTONS } from "../../../packages/chat-core/test/support/done-buttons.js";
import { StatusMessages, type UploadedPreviews } from "../src/generations/status-messages.js";
import {
  type BotTokenFor,
  NotInstalledError,
  WorkspaceClients,
} from "../src/installations/workspace-clients.js";
import { BOT_SCOPES } from "../src/slack-scopes.js";
import { FakeSlack } from "./support/fake-slack.js";
import { aDoneGeneration, aGeneration, anImage } from "./support/fixtures.js";
import { BOT_TOKEN } from "./support/test-bot.js";

const TEAM = "T200";
const CHANNEL = "C200";
/** A preview as imagehub serves it: a real JPEG, which the grid is composed from. */
const JPEG = await sharp({
  create: { width: 64, height: 36, channels: 3, background: { r: 200, g: 90, b: 40 } },
})
  .jpeg()
  .toBuffer();

/** StatusMessages on its own, writing to the fake Slack: what reaches Slack, and what a delivery fails on. */
describe("StatusMessages", () => {
  let fake: FakeSlack;
  let warnings: string[];
  let dataDir: string;
  /** Where the bot's grids are served, for Slack to fetch (a JPEG at any path). */
  let gridsServer: Server;
  let gridsUrl: string;
  const slack = () => new webApi.WebClient(BOT_TOKEN, { slackApiUrl: fake.apiUrl });
  /** The bot's store as a restarted bot opens it again. */
  const uploadedPreviews = async () =>
    (await JsonFileStore.open(join(dataDir, "slack-bot.json"))).collection<UploadedPreviews>(
      "uploadedPreviews",
    );
  const statusMessages = async (options: { botTokenFor?: BotTokenFor; isImagesPublic?: boolean } = {}) =>
    new StatusMessages({
      workspaces: new WorkspaceClients(options.botTokenFor ?? (async () => BOT_TOKEN), {
        slackApiUrl: fake.apiUrl,
      }),
      previewsFor: async (_teamId, view) =>
        view.images.map(({ number }) => ({ number, name: `image-${number}.jpg`, jpeg: JPEG })),
      gridUrlFor: options.isImagesPublic
        ? (teamId, generationId) => `${gridsUrl}/imagehub/grids/${teamId}/${generationId}.jpg`
        : undefined,
      uploadedPreviews: await uploadedPreviews(),
      logger: { warn: (...logged: unknown[]) => warnings.push(String(logged.at(-1))) },
    });
  const queued = queuedView({ name: "a fox", prompt: "a fox", mode: "simple" });
  const processing = aGeneration({ status: GenerationStatus.Processing, images: [anImage(1)] });

  async function posted(messages: StatusMessages): Promise<ChatTarget> {
    const { messageId } = await messages.post(slack(), { channelId: CHANNEL, userId: "U1" }, queued);
    return {
      platform: "slack",
      teamId: TEAM,
      channelId: CHANNEL,
      messageId,
      userId: "U1",
      signature: "s",
    };
  }

  beforeAll(async () => {
    fake = await FakeSlack.start();
    fake.addBotToken(BOT_TOKEN, TEAM);
    dataDir = await mkdtemp(join(tmpdir(), "slack-status-messages-"));
    gridsServer = createServer((_request, response) =>
      response.writeHead(200, { "content-type": "image/jpeg" }).end(JPEG),
    ).listen(0, "127.0.0.1");
    await once(gridsServer, "listening");
    gridsUrl = `http://127.0.0.1:${(gridsServer.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    warnings = [];
  });
  afterAll(async () => {
    await fake?.close();
    gridsServer?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("updates the message in place", async () => {
    const messages = await statusMessages();
    const target = await posted(messages);

    await messages.show(target, processing, "grid");

    const message = fake.messages.get(`${CHANNEL}/${target.messageId}`);
    expect(message?.versions.map((version) => version.text)).toEqual([
      "a fox: Queued",
      "a red fox in the snow: Generating… 1/4",
    ]);
  });

  it("uploads the grid of the 4 previews into the thread, then shows it in the message by its file id", async () => {
    const messages = await statusMessages();
    const target = await posted(messages);

    await messages.show(target, aDoneGeneration(), "grid");

    const uploads = [...fake.files.values()].filter((file) => file.threadTs === target.messageId);
    expect(uploads.map((file) => file.filename)).toEqual(["images.jpg"]);
    const grid = await sharp(uploads[0]?.bytes).metadata();
    expect([grid.format, grid.width, grid.height]).toEqual(["jpeg", 128, 72]);
    const methods = fake.calls.map((call) => call.method);
    expect(methods.lastIndexOf("files.completeUploadExternal")).toBeLessThan(
      methods.lastIndexOf("chat.update"),
    );
    const image = fake.messages
      .get(`${CHANNEL}/${target.messageId}`)
      ?.blocks.find((block) => block.type === "image");
    expect(image?.slack_file).toEqual({ id: uploads[0]?.id });
  });

  it("tells the queue Slack refused the grid's form when it will not show the file in the message", async () => {
    const messages = await statusMessages();
    const target = await posted(messages);
    fake.nextErrors.set("chat.update", "invalid_blocks");

    await expect(
      messages.show(target, aDoneGeneration({ id: "0196a1f0-0000-7000-8000-00000000d0e4" }), "grid"),
    ).rejects.toThrow(FormRefusedError);
    await messages.show(target, aDoneGeneration({ id: "0196a1f0-0000-7000-8000-00000000d0e4" }), "links");

    const message = fake.messages.get(`${CHANNEL}/${target.messageId}`);
    expect(message?.versions.at(-1)?.text).toBe("a red fox in the snow: Done");
    expect(JSON.stringify(message?.blocks)).toContain("|Image 4>");
  });

  it("posts one short message that mentions the requester when the generation ends", async () => {
    const messages = await statusMessages();
    const target = await posted(messages);

    await messages.announce(target, aDoneGeneration());

    const notice = fake.callsOf("chat.postMessage").at(-1);
    expect(notice?.args).toMatchObject({
      channel: CHANNEL,
      text: "<@U1> your images of “a red fox in the snow” are ready.",
    });
  });

  it("uploads the previews once, though the completion comes again after a restart", async () => {
    const target = await posted(await statusMessages());
    const done = aDoneGeneration({ id: "0196a1f0-0000-7000-8000-00000000d0e2" });
    await (await statusMessages()).show(target, done, "grid");

    await (await statusMessages()).show(target, done, "grid");

    const uploads = [...fake.files.values()].filter((file) => file.threadTs === target.messageId);
    expect(uploads).toHaveLength(1);
    const message = fake.messages.get(`${CHANNEL}/${target.messageId}`);
    expect(message?.versions.at(-1)?.text).toBe(message?.versions.at(-2)?.text);
  });

  it("uploads nothing when Slack can fetch links itself, and shows the grid at the bot's link", async () => {
    const messages = await statusMessages({ isImagesPublic: true });
    const target = await posted(messages);
    const done = aDoneGeneration();

    await messages.show(target, done, "grid");

    expect([...fake.files.values()].filter((file) => file.threadTs === target.messageId)).toEqual([]);
    const shown = fake.messages.get(`${CHANNEL}/${target.messageId}`);
    expect(shown?.blocks.filter((block) => block.type === "image").map((block) => block.image_url)).toEqual([
      `${gridsUrl}/imagehub/grids/${TEAM}/${done.id}.jpg`,
    ]);
    // Slack fetched it itself.
    expect(fake.imageFetches.at(-1)).toEqual({
      url: `${gridsUrl}/imagehub/grids/${TEAM}/${done.id}.jpg`,
      status: 200,
    });
  });

  it("lets go of a message someone deleted, so that imagehub does not redeliver in vain", async () => {
    const messages = await statusMessages();
    const target = await posted(messages);
    await slack().chat.delete({ channel: CHANNEL, ts: target.messageId });

    await expect(messages.show(target, processing, "grid")).rejects.toThrow(MessageGoneError);
    await expect(messages.show(target, processing, "grid")).rejects.toThrow("message_not_found");
  });

  it("lets go of a workspace the app is no longer installed in", async () => {
    const messages = await statusMessages({
      botTokenFor: async (teamId) => {
        throw new NotInstalledError(`imagehub is not installed in the workspace ${teamId}`);
      },
    });

    await expect(
      messages.show(
        {
          platform: "slack",
          teamId: TEAM,
          channelId: CHANNEL,
          messageId: "1.2",
          userId: "U1",
          signature: "s",
        },
        processing,
        "grid",
      ),
    ).rejects.toThrow(new MessageGoneError("imagehub is not installed in the workspace T200"));
  });

  it("ends with its buttons though Slack refuses the upload (a channel reached through chat:write.public)", async () => {
    const messages = await statusMessages();
    const target = await posted(messages);
    fake.channelsNotJoined.add(CHANNEL);

    await messages.show(target, aDoneGeneration({ id: "0196a1f0-0000-7000-8000-00000000d0e3" }), "grid");

    fake.channelsNotJoined.delete(CHANNEL);
    const message = fake.messages.get(`${CHANNEL}/${target.messageId}`);
    expect(message?.versions.at(-1)?.text).toBe("a red fox in the snow: Done");
    const actions = message?.blocks.find((block) => block.type === "actions");
    expect(actions?.elements?.map((button) => button.text?.text)).toEqual(DONE_BUTTONS);
    expect(JSON.stringify(message?.blocks)).toContain("/invite @imagehub");
    expect(warnings).toEqual(["previews not uploaded; the message ends without them"]);
  });

  it("cannot update another workspace's message with its own token, and lets go of it (channel_not_found)", async () => {
    const target = await posted(await statusMessages());
    fake.addBotToken("xoxb-other-workspace", "T999");
    const otherWorkspace = await statusMessages({ botTokenFor: async () => "xoxb-other-workspace" });

    await expect(otherWorkspace.show(target, processing, "grid")).rejects.toThrow(
      new MessageGoneError("channel_not_found"),
    );
    expect(fake.messages.get(`${CHANNEL}/${target.messageId}`)?.versions).toHaveLength(1);
  });

  it("lets go of a message whose workspace revoked the token (token_revoked)", async () => {
    const target = await posted(await statusMessages());
    fake.addBotToken("xoxb-revoked", TEAM);
    fake.revokedTokens.add("xoxb-revoked");
    const revoked = await statusMessages({ botTokenFor: async () => "xoxb-revoked" });

    await expect(revoked.show(target, processing, "grid")).rejects.toThrow(
      new MessageGoneError("token_revoked"),
    );
  });

  it.each<[string, () => Promise<{ messages: StatusMessages; target: ChatTarget }>, RegExp]>([
    [
      "a workspace preference keeps apps from posting in the channel (restricted_action)",
      async () => {
        const messages = await statusMessages();
        const target = await posted(messages);
        fake.restrictedChannels.add(CHANNEL);
        return { messages, target };
      },
      /^leave to post in that channel: a workspace admin allows it/,
    ],
    [
      "the app was installed without `chat:write` (missing_scope)",
      async () => {
        const target = await posted(await statusMessages());
        fake.addBotToken(
          "xoxb-read-only",
          TEAM,
          BOT_SCOPES.filter((scope) => scope !== "chat:write"),
        );
        return { messages: await statusMessages({ botTokenFor: async () => "xoxb-read-only" }), target };
      },
      /^the permission `chat:write`: a workspace admin adds it/,
    ],
  ])("keeps a message for later when %s, naming what the bot lacks", async (_, refuse, missing) => {
    const { messages, target } = await refuse();
    try {
      const refused = await messages.show(target, processing, "grid").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(PermissionMissingError);
      expect((refused as PermissionMissingError).missing).toMatch(missing);
    } finally {
      fake.restrictedChannels.clear();
    }
  });

  it("fails the delivery on an error another try may mend", async () => {
    const messages = await statusMessages();
    const target = await posted(messages);
    fake.nextErrors.set("chat.update", "internal_error");

    await expect(messages.show(target, processing, "grid")).rejects.toThrow(/internal_error/);
  });
});
