import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GenerationStatus, type ImageGeneration } from "@imagehub/domain";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { closeServer } from "../../../tests/support/close-server.js";
import type { ChatTarget } from "../src/chat-target.js";
import { JsonFileStore } from "../src/json-file-store.js";
import { SecretBox } from "../src/secret-box.js";
import { type TeamConnectionRecord, TeamConnections } from "../src/team-connections.js";
import { WebhookReceiver } from "../src/webhook-receiver.js";

const SECRET = `whsec_${randomBytes(24).toString("base64")}`;
const TARGET: ChatTarget = {
  platform: "discord",
  teamId: "team-1",
  channelId: "c",
  messageId: "m",
  userId: "u",
};

function generation(status: ImageGeneration["status"], images: number): ImageGeneration {
  const image = (index: number) => ({
    id: `image-${index}`,
    url: `https://api.test/v1/images/preview/image-${index}.jpg`,
    urlFull: `https://api.test/v1/images/full/image-${index}.jpg`,
    validate: true,
    free: false,
    titles: { en: "a lake" },
  });
  return {
    id: "gen-1",
    name: "a lake",
    prompt: "a lake",
    mode: "simple",
    optimizePrompt: false,
    status,
    params: [],
    images: Array.from({ length: images }, (_, index) => image(index)),
    nbImages: 4,
    tags: [],
    metaData: { chat: TARGET },
    createdAt: "2026-11-23T10:00:00.000Z",
  };
}

describe("WebhookReceiver", () => {
  let folder: string;
  let server: Server;
  let url: string;
  let receiver: WebhookReceiver;
  let shown: ImageGeneration[];
  let events = 0;
  const nextEventId = () => {
    events += 1;
    return `msg_${events}`;
  };

  /** A delivery signed as imagehub signs it, to the team's path. */
  const deliver = (data: ImageGeneration, { id = nextEventId(), secret = SECRET, path = "team-1" } = {}) => {
    const body = JSON.stringify({ id, api_version: 1, created: 1, type: "print.progress", data });
    const signature = new Webhook(secret).sign(id, new Date(), body);
    return fetch(`${url}/imagehub/webhooks/${path}`, {
      method: "POST",
      headers: {
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": signature,
      },
      body,
    });
  };

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "receiver-"));
    const secretBox = new SecretBox(randomBytes(32).toString("base64"));
    const records = (await JsonFileStore.open(join(folder, "state.json"))).collection<TeamConnectionRecord>(
      "teams",
    );
    await records.set("team-1", {
      connectionId: "team-1",
      sealedApiKey: secretBox.seal("ih_key"),
      webhookId: "webhook-1",
      webhookUrl: "http://bot.test/imagehub/webhooks/team-1",
      sealedWebhookSecret: secretBox.seal(SECRET),
      accountEmail: "team@example.test",
      connectedBy: "u",
      connectedAt: "2026-11-23T10:00:00.000Z",
    });
    const connections = new TeamConnections({
      platform: "discord",
      records,
      secretBox,
      apiBaseUrl: "http://api.test",
      publicUrl: "http://bot.test",
    });
    receiver = new WebhookReceiver({
      platform: "discord",
      connections,
      onGeneration: async (_target, generation) => {
        shown.push(generation);
      },
    });
    server = createServer(receiver.listener).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  beforeEach(() => {
    shown = [];
    receiver.restart("gen-1");
  });

  afterAll(async () => {
    await closeServer(server);
    await rm(folder, { recursive: true, force: true });
  });

  it("shows each step once, and skips an event behind what the message shows", async () => {
    expect((await deliver(generation(GenerationStatus.Processing, 1))).status).toBe(204);
    expect((await deliver(generation(GenerationStatus.Done, 4))).status).toBe(204);
    // A progress event retried after the completion: the message stays Done.
    expect((await deliver(generation(GenerationStatus.Processing, 3))).status).toBe(204);
    expect(shown.map((step) => [step.status, step.images.length])).toEqual([
      [GenerationStatus.Processing, 1],
      [GenerationStatus.Done, 4],
    ]);
  });

  it("handles a delivery once, however many times it comes", async () => {
    await deliver(generation(GenerationStatus.Processing, 0), { id: "msg_twice" });
    receiver.restart("gen-1");
    expect((await deliver(generation(GenerationStatus.Processing, 0), { id: "msg_twice" })).status).toBe(204);
    expect(shown).toHaveLength(1);
  });

  it("follows a retried generation from the start again", async () => {
    await deliver(generation(GenerationStatus.Error, 0));
    receiver.restart("gen-1");
    await deliver(generation(GenerationStatus.Processing, 0));
    expect(shown.map((step) => step.status)).toEqual([GenerationStatus.Error, GenerationStatus.Processing]);
  });

  it("refuses a forged signature (401), a removed connection (410) and other paths (404)", async () => {
    const forged = `whsec_${randomBytes(24).toString("base64")}`;
    expect((await deliver(generation(GenerationStatus.Done, 4), { secret: forged })).status).toBe(401);
    expect((await deliver(generation(GenerationStatus.Done, 4), { path: "team-gone" })).status).toBe(410);
    expect((await fetch(`${url}/elsewhere`, { method: "POST" })).status).toBe(404);
    expect(shown).toEqual([]);
  });

  it("ignores generations another platform's bot started", async () => {
    const slack = {
      ...generation(GenerationStatus.Done, 4),
      metaData: { chat: { ...TARGET, platform: "slack" } },
    };
    expect((await deliver(slack)).status).toBe(204);
    expect(shown).toEqual([]);
  });
});
