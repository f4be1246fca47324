import { randomBytes } from "node:crypto";
import { GenerationStatus, type ImageGeneration } from "@imagehub/domain";
import type { BotStore } from "../../src/bot-store.js";
import { type ChatTarget, signTarget } from "../../src/chat-target.js";
import type { LeaseRecord } from "../../src/leases.js";
import { SecretBox } from "../../src/secret-box.js";
import type {
  MessageOwnerRecord,
  PendingUpdateRecord,
  StatusMessageRecord,
} from "../../src/status-records.js";

/** The data chat-core's specs are written with: one builder per shape, overrides for what a spec is about. */

/** The bot's key in specs that sign targets. */
export const secretBox = new SecretBox(randomBytes(32).toString("base64"));

/** Image `id` of a generation, with its preview and full-size links. */
export function anImage(id: string): ImageGeneration["images"][number] {
  return {
    id,
    url: `https://api.test/v1/images/preview/${id}.jpg`,
    urlFull: `https://api.test/v1/images/full/${id}.jpg`,
    validate: true,
    free: false,
    titles: { en: "a lake" },
  };
}

/** A queued generation of "a lake"; `overrides` set what a spec is about. */
export function aGeneration(overrides: Partial<ImageGeneration> = {}): ImageGeneration {
  return {
    id: "gen-1",
    name: "a lake",
    prompt: "a lake",
    mode: "simple",
    optimizePrompt: false,
    status: GenerationStatus.Pending,
    params: [],
    images: [],
    nbImages: 4,
    tags: [],
    metaData: {},
    createdAt: "2026-11-23T10:00:00.000Z",
    ...overrides,
  };
}

/** Generation `id` at a step: its status and the images drawn so far, created at `createdAt` (ms). */
export function aStep(
  id: string,
  status: ImageGeneration["status"],
  images: number,
  createdAt = Date.now(),
): ImageGeneration {
  return aGeneration({
    id,
    status,
    images: Array.from({ length: images }, (_, index) => anImage(`${id}-image-${index}`)),
    createdAt: new Date(createdAt).toISOString(),
  });
}

let messages = 0;

/** A signed target of a new status message in a channel of team T1, for user U1. */
export function aTarget(channelId = "C1"): ChatTarget {
  messages += 1;
  return signTarget(
    { platform: "slack", teamId: "T1", channelId, messageId: `m-${messages}`, userId: "U1" },
    secretBox,
  );
}

/** The collections a StatusUpdates keeps in a store. */
export function statusCollectionsOf(store: BotStore) {
  return {
    messages: store.collection<StatusMessageRecord>("statusMessages"),
    owners: store.collection<MessageOwnerRecord>("messageOwners"),
    pending: store.collection<PendingUpdateRecord>("pendingUpdates"),
    leases: store.collection<LeaseRecord>("leases"),
  };
}

/** imagehub as the reconciler reads it: the generations it holds, or down. */
export class FakeImagehub {
  readonly generations = new Map<string, ImageGeneration>();
  isDown = false;
  readonly fetch = async (_target: ChatTarget, generationId: string): Promise<ImageGeneration> => {
    if (this.isDown) throw new Error("connect ECONNREFUSED");
    const generation = this.generations.get(generationId);
    if (!generation) throw new Error(`404: no generation ${generationId}`);
    return generation;
  };
}

/** What a platform received: each generation's steps, as "status/images". */
export type Shown = Map<string, string[]>;
export const stepOf = (generation: ImageGeneration) => `${generation.status}/${generation.images.length}`;
