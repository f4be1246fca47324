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
import { aGeneration, anImage, secretBox } from "../test/support/fixtures.js";
import { createBotLogger } from "./bot-logger.js";
import { type ChatTarget, signTarget, type UnsignedChatTarget } from "./chat-target.js";
import { JsonFileStore } from "./json-file-store.js";
import type { LeaseRecord } from "./leases.js";
import { SecretBox } from "./secret-box.js";
import type { MessageOwnerRecord, PendingUpdateRecord, StatusMessageRecord } from "./status-records.js";
import { StatusUpdates } from "./status-updates.js";
import {
  DEFAULT_CONNECTION,
  NotConnectedError,
  type TeamConnectionRecord,
  TeamConnections,
} from "./team-connections.js";
import { WebhookReceiver } from "./webhook-receiver.js";

const DAY_MS = 24 * 3_600_000;
const SECRET = `whsec_${randomBytes(24).toString("base64")}`;
const DEFAULT_SECRET = `whsec_${randomBytes(24).toString("base64")}`;
/** A second team connected to the same imagehub account: its own webhook, which gets the same events. */
const TEAM_2_SECRET = `whsec_${randomBytes(24).toString("base64")}`;
const targetOf = (teamId: string, signer = secretBox): ChatTarget =>
  signTarget({ platform: "discord", teamId, channelId: "c", messageId: "m", userId: "u" }, signer);
const TARGET = targetOf("team-1");

/** The generation of TARGET's message at a step (its metaData names `target`). */
function generation(
  status: ImageGeneration["status"],
  images: number,
  target: ChatTarget | UnsignedChatTarget = TARGET,
): ImageGeneration {
  return aGeneration({
    status,
    images: Array.from({ length: images }, (_, index) => anImage(`image-${index}`)),
    metaData: { chat: target },
    createdAt: new Date().toISOString(),
  });
}

describe("WebhookReceiver", () => {
  let folder: string;
  let server: Server;
  let url: string;
  let receiver: WebhookReceiver;
  let shown: ImageGeneration[];
  let connections: TeamConnections;
  let updates: StatusUpdates;
  /** The platform's answer to the edit being applied. */
  let applying: Promise<void>;
  let logLines: { level: number; msg: string }[];
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
    const state = await JsonFileStore.open(join(folder, "state.json"));
    const records = state.collection<TeamConnectionRecord>("teams");
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
    await records.set("team-2", {
      connectionId: "team-2",
      sealedApiKey: secretBox.seal("ih_key"),
      webhookId: "webhook-2",
      webhookUrl: "http://bot.test/imagehub/webhooks/team-2",
      sealedWebhookSecret: secretBox.seal(TEAM_2_SECRET),
      accountEmail: "team@example.test",
      connectedBy: "u",
      connectedAt: "2026-11-23T10:00:00.000Z",
    });
    await records.set(DEFAULT_CONNECTION, {
      connectionId: DEFAULT_CONNECTION,
      sealedApiKey: secretBox.seal("ih_default"),
      webhookId: "webhook-default",
      webhookUrl: "http://bot.test/imagehub/webhooks/default",
      sealedWebhookSecret: secretBox.seal(DEFAULT_SECRET),
      accountEmail: "operator@example.test",
      connectedBy: "configuration",
      connectedAt: "2026-11-23T10:00:00.000Z",
    });
    connections = new TeamConnections({
      platform: "discord",
      records,
      secretBox,
      apiBaseUrl: "http://api.test",
      publicUrl: "http://bot.test",
      defaultApiKey: "ih_default",
      defaultKeyTeams: ["team-opted-in"],
    });
    const logged = {
      write: (line: string) => {
        logLines.push(JSON.parse(line));
      },
    };
    const logger = createBotLogger("test", "info", logged);
    updates = new StatusUpdates({
      messages: state.collection<StatusMessageRecord>("statusMessages"),
      owners: state.collection<MessageOwnerRecord>("messageOwners"),
      pending: state.collection<PendingUpdateRecord>("pendingUpdates"),
      leases: state.collection<LeaseRecord>("leases"),
      fetchGeneration: async () => {
        throw new Error("imagehub is not asked here");
      },
      apply: async (_target, generation) => {
        await applying;
        shown.push(generation);
      },
      retentionMs: DAY_MS,
      logger,
    });
    updates.start();
    receiver = new WebhookReceiver({ platform: "discord", connections, secretBox, updates, logger });
    server = createServer(receiver.listener).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  beforeEach(async () => {
    shown = [];
    logLines = [];
    applying = Promise.resolve();
    await updates.restart(TARGET, "gen-1");
  });

  afterAll(async () => {
    await updates.stop();
    await closeServer(server);
    await rm(folder, { recursive: true, force: true });
  });

  /** Delivers, then waits for the queue to have shown what it will. */
  const deliverAndShow = async (data: ImageGeneration, options?: Parameters<typeof deliver>[1]) => {
    const response = await deliver(data, options);
    await updates.settled();
    return response;
  };

  it("shows each step once, and skips an event behind what the message shows", async () => {
    expect((await deliverAndShow(generation(GenerationStatus.Processing, 1))).status).toBe(204);
    expect((await deliverAndShow(generation(GenerationStatus.Done, 4))).status).toBe(204);
    // A progress event retried after the completion: the message stays Done.
    expect((await deliverAndShow(generation(GenerationStatus.Processing, 3))).status).toBe(204);
    expect(shown.map((step) => [step.status, step.images.length])).toEqual([
      [GenerationStatus.Processing, 1],
      [GenerationStatus.Done, 4],
    ]);
  });

  it("handles a delivery once, however many times it comes", async () => {
    await deliverAndShow(generation(GenerationStatus.Processing, 0), { id: "msg_twice" });
    await updates.restart(TARGET, "gen-1");
    const again = await deliverAndShow(generation(GenerationStatus.Processing, 0), { id: "msg_twice" });
    expect(again.status).toBe(204);
    expect(shown).toHaveLength(1);
  });

  it("shows an event for the second team of one imagehub account, though the first team's webhook refused it", async () => {
    const ofTeam2 = {
      ...generation(
        GenerationStatus.Done,
        4,
        signTarget({ ...TARGET, teamId: "team-2", messageId: "m2" }, secretBox),
      ),
      id: "gen-team-2",
    };
    // imagehub delivers the event to each webhook of the account, with one event id.
    expect((await deliverAndShow(ofTeam2, { id: "msg_shared" })).status).toBe(204);
    expect(shown).toEqual([]);
    const second = await deliverAndShow(ofTeam2, { id: "msg_shared", path: "team-2", secret: TEAM_2_SECRET });

    expect(second.status).toBe(204);
    expect(shown.map((step) => step.id)).toEqual(["gen-team-2"]);
  });

  it("refuses a generation created long after its signed message was posted (a target copied onto it)", async () => {
    const postedAt = Date.now() - 60 * 60_000;
    const copied = {
      ...generation(
        GenerationStatus.Done,
        4,
        signTarget({ ...TARGET, messageId: "m-old", postedAt }, secretBox),
      ),
      id: "gen-copied",
    };
    expect((await deliverAndShow(copied)).status).toBe(204);
    expect(shown).toEqual([]);
  });

  it("follows a retried generation from the start again", async () => {
    await deliverAndShow(generation(GenerationStatus.Error, 0));
    await updates.restart(TARGET, "gen-1");
    await deliverAndShow(generation(GenerationStatus.Processing, 0));
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
    const slack = generation(
      GenerationStatus.Done,
      4,
      signTarget({ ...TARGET, platform: "slack" }, secretBox),
    );
    expect((await deliver(slack)).status).toBe(204);
    expect(shown).toEqual([]);
  });

  it("answers a delivery once its state is recorded, while the platform has not answered yet", async () => {
    let answer = () => {};
    applying = new Promise((resolve) => {
      answer = resolve;
    });
    const generationOfItsOwn = {
      ...generation(GenerationStatus.Done, 4, signTarget({ ...TARGET, messageId: "m-slow" }, secretBox)),
      id: "gen-slow-platform",
    };

    expect((await deliver(generationOfItsOwn)).status).toBe(204);
    expect(shown).toEqual([]);
    answer();
    await updates.settled();
    expect(shown.map((step) => step.id)).toEqual(["gen-slow-platform"]);
  });

  describe("acts only within the connection's own team", () => {
    const warnings = () => logLines.filter((line) => line.level === 40).map((line) => line.msg);

    it("refuses a message of another team, and logs it", async () => {
      const foreign = generation(GenerationStatus.Done, 4, targetOf("team-2"));
      expect((await deliverAndShow(foreign)).status).toBe(204);
      expect(shown).toEqual([]);
      expect(warnings()).toEqual([expect.stringMatching(/^refused a generation whose chat target/)]);
    });

    it("refuses a target the bot did not write: unsigned, or signed with another key", async () => {
      const { signature: _, ...unsigned } = TARGET;
      const otherBot = new SecretBox(randomBytes(32).toString("base64"));
      await deliver(generation(GenerationStatus.Done, 4, unsigned));
      await deliver(generation(GenerationStatus.Done, 4, targetOf("team-1", otherBot)));
      await deliver(generation(GenerationStatus.Done, 4, { ...TARGET, messageId: "another-message" }));
      expect(shown).toEqual([]);
      expect(warnings()).toHaveLength(3);
    });

    it("lets the default key's webhook act only on the teams opted in to it", async () => {
      const path = DEFAULT_CONNECTION;
      await deliverAndShow(generation(GenerationStatus.Done, 4, targetOf("team-1")), {
        path,
        secret: DEFAULT_SECRET,
      });
      expect(shown).toEqual([]);
      const optedIn = { ...generation(GenerationStatus.Done, 4, targetOf("team-opted-in")), id: "gen-2" };
      await deliverAndShow(optedIn, { path, secret: DEFAULT_SECRET });
      expect(shown.map((step) => step.id)).toEqual(["gen-2"]);
    });
  });

  it("answers a clean 4xx, logging no error, to paths such as /constructor and to bad percent-encoding", async () => {
    const answers = await Promise.all(
      ["constructor", "__proto__", "toString", "%E0%A4%A", "%"].map((path) =>
        deliver(generation(GenerationStatus.Done, 4), { path }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([410, 410, 410, 400, 400]);
    expect(await answers[3]?.json()).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: ["the connection id in the path is not valid percent-encoding"],
    });
    expect(logLines.filter((line) => line.level >= 50)).toEqual([]);
    expect(shown).toEqual([]);
  });
});

describe("TeamConnections' default key", () => {
  it("serves only the teams the operator opted in", async () => {
    const folder = await mkdtemp(join(tmpdir(), "connections-"));
    const connections = new TeamConnections({
      platform: "slack",
      records: (await JsonFileStore.open(join(folder, "state.json"))).collection<TeamConnectionRecord>(
        "teams",
      ),
      secretBox,
      apiBaseUrl: "http://api.test",
      publicUrl: "http://bot.test",
      defaultApiKey: "ih_default",
      defaultKeyTeams: ["T-opted-in"],
    });
    await expect(connections.clientFor("T-opted-in")).resolves.toBeDefined();
    await expect(connections.clientFor("T-anyone")).rejects.toThrow(NotConnectedError);
    connections.turnOffDefaultKey();
    await expect(connections.clientFor("T-opted-in")).rejects.toThrow(NotConnectedError);
    await rm(folder, { recursive: true, force: true });
  });
});
