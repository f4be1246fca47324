import { GenerationStatus, type Image, type ImageGeneration } from "@imagehub/domain";
import type { Workspace } from "./slack-requests.js";

/** The data the Slack bot's specs are written with: one builder per shape, overrides for what a spec is about. */

let channels = 0;

/** A person in a channel of its own of workspace T001, so that the status message there is their test's. */
export function aWorkspace(userId = "U001", teamId = "T001"): Workspace {
  channels += 1;
  return { teamId, channelId: `C${String(channels).padStart(3, "0")}`, userId };
}

/** A generation as imagehub answers it; Pending and without images unless told. */
export function aGeneration(overrides: Partial<ImageGeneration> = {}): ImageGeneration {
  return {
    id: "gen-1",
    name: "a red fox in the snow",
    prompt: "a red fox in the snow",
    mode: "simple",
    optimizePrompt: false,
    status: GenerationStatus.Pending,
    params: [],
    images: [],
    nbImages: 0,
    tags: [],
    metaData: {},
    createdAt: "2026-01-01T00:00:00.000Z",
    ...overrides,
  };
}

export function anImage(number: number): Image {
  return {
    id: `img-${number}`,
    url: `https://imagehub.example/v1/display/preview/img-${number}`,
    urlFull: `https://imagehub.example/v1/display/full/img-${number}`,
    validate: true,
    free: false,
    titles: {},
  };
}

export function aDoneGeneration(overrides: Partial<ImageGeneration> = {}): ImageGeneration {
  const images = [1, 2, 3, 4].map(anImage);
  return aGeneration({ status: GenerationStatus.Done, images, nbImages: images.length, ...overrides });
}
