import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ImagehubClient } from "@imagehub/client";
import { GenerationStatus, type ImageGeneration } from "@imagehub/domain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aGeneration, secretBox } from "../test/support/fixtures.js";
import { type Buyer, ChatPurchases } from "./chat-purchases.js";
import { chatMetaData, signTarget } from "./chat-target.js";
import { JsonFileStore } from "./json-file-store.js";
import { SecretBox } from "./secret-box.js";
import type { TeamConnections } from "./team-connections.js";
import { type TeamSettings, TeamSettingsStore } from "./team-settings.js";
import { TeamUsage, type TeamUsageRecord } from "./team-usage.js";

const REQUESTER = "U-requester";

/** A finished generation whose metaData names its status message, as the bot signs it (or another key). */
function aSignedGeneration(id: string, signer = secretBox): ImageGeneration {
  const target = signTarget(
    { platform: "slack", teamId: "T1", channelId: "C1", messageId: "1.2", userId: REQUESTER },
    signer,
  );
  return aGeneration({ id, status: GenerationStatus.Done, metaData: chatMetaData(target) });
}

/** The team's imagehub account: its generations, and a purchase that always succeeds. */
function anAccount(generations: ImageGeneration[]): ImagehubClient {
  return {
    generations: { get: async (id: string) => generations.find((generation) => generation.id === id) },
    images: {
      buy: async (id: string) => ({
        id,
        url: `https://api.test/${id}`,
        urlFull: `https://api.test/full/${id}`,
        urlUpscaleUHD: `https://api.test/uhd/${id}`,
      }),
      file: async (link: string) => new Response(`clean bytes behind ${link}`),
    },
    credits: { get: async () => ({ credits: [] }) },
  } as unknown as ImagehubClient;
}

const aMember = (userId: string): Buyer => ({
  userId,
  isAdmin: async () => false,
  isInGroup: async () => false,
});

describe("ChatPurchases", () => {
  let folder: string;
  let purchases: ChatPurchases;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "purchases-"));
    // A bot's state that holds no status message: finished ones are forgotten after the retention.
    const store = await JsonFileStore.open(join(folder, "bot.json"));
    const account = anAccount([
      aSignedGeneration("remembered"),
      aSignedGeneration("forged", new SecretBox(randomBytes(32).toString("base64"))),
    ]);
    purchases = new ChatPurchases({
      connections: { clientFor: async () => account } as unknown as TeamConnections,
      usage: new TeamUsage(store.collection<TeamUsageRecord>("teamUsage"), {
        userCooldownSeconds: 0,
        maxRunningPerTeam: 3,
      }),
      settings: new TeamSettingsStore(store.collection<TeamSettings>("teamSettings")),
      secretBox,
      groupLabel: (groupId) => groupId,
    });
  });
  afterAll(async () => rm(folder, { recursive: true, force: true }));

  const buy = (generationId: string, buyer: Buyer) =>
    purchases.buy("T1", buyer, { kind: "buy", imageId: `${generationId}-1`, imageNumber: 1, generationId });

  it("lets the requester buy, known from the generation's signed metaData once the bot forgot the message", async () => {
    expect(await buy("remembered", aMember(REQUESTER))).toMatchObject({ kind: "bought", imageNumber: 1 });
  });

  it("refuses anyone else who is neither an admin nor in the buyers' group", async () => {
    expect(await buy("remembered", aMember("U-other"))).toMatchObject({ kind: "refused" });
  });

  it("does not take a requester from metaData the bot did not sign", async () => {
    expect(await buy("forged", aMember(REQUESTER))).toMatchObject({ kind: "refused" });
  });

  describe("U n", () => {
    const upscale = (generationId: string, buyer: Buyer) =>
      purchases.upscale("T1", buyer, {
        kind: "upscale",
        imageId: `${generationId}-2`,
        imageNumber: 2,
        generationId,
      });

    it("buys the image for whoever may buy it, and brings its clean full size with the renditions' links", async () => {
      const outcome = await upscale("remembered", aMember(REQUESTER));

      expect(outcome).toMatchObject({
        kind: "bought",
        imageNumber: 2,
        links: { full: "https://api.test/full/remembered-2", uhd: "https://api.test/uhd/remembered-2" },
      });
      expect(outcome.kind === "bought" && String(outcome.fullSize.jpeg)).toBe(
        "clean bytes behind https://api.test/full/remembered-2",
      );
    });

    it("refuses, as Buy does, anyone the team does not let buy", async () => {
      expect(await upscale("remembered", aMember("U-other"))).toMatchObject({ kind: "refused" });
    });
  });
});
