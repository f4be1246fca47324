import { GenerationStatus, type ImageGeneration } from "@imagehub/domain";
import { describe, expect, it } from "vitest";
import { DONE_BUTTONS } from "../test/support/done-buttons.js";
import { aGeneration, anImage } from "../test/support/fixtures.js";
import { decodeAction, encodeAction } from "./chat-actions.js";
import { generationView, progressRank, queuedView } from "./generation-view.js";

/** The generation these specs look at: "a lighthouse", 16:9, realistic. */
const generation = (overrides: Partial<ImageGeneration> = {}) =>
  aGeneration({
    name: "a lighthouse",
    prompt: "a lighthouse",
    params: [
      { name: "format", value: "16:9" },
      { name: "templatePrompt", value: "realisticQuality" },
    ],
    ...overrides,
  });
const image = anImage;

describe("generation views", () => {
  it("shows a request as queued, with its parameters in chat words", () => {
    expect(
      queuedView({
        name: "a lake",
        prompt: "a lake",
        mode: "simple",
        optimizePrompt: true,
        processMode: "fast",
        params: [{ name: "interdiction", value: "boats" }],
      }),
    ).toMatchObject({
      phase: "queued",
      status: "Queued",
      parameters: ["avoid: boats", "optimized", "fast"],
      buttons: [],
    });
  });

  it("counts images while processing, and holds those drawn so far for the grid to grow with", () => {
    const view = generationView(
      generation({ status: GenerationStatus.Processing, images: [image("a"), image("b")] }),
    );
    expect(view).toMatchObject({ phase: "active", status: "Generating… 2/4", imagesDone: 2 });
    expect(view.images.map(({ number, imageId }) => `${number}:${imageId}`)).toEqual(["1:a", "2:b"]);
    expect(view.parameters).toEqual(["format 16:9", "template realistic"]);
  });

  it("offers Buy 1 to Buy 4, U1 to U4, V1 to V4, Show all 4 and Again once done, each carrying its image or generation", () => {
    const view = generationView(
      generation({ status: GenerationStatus.Done, images: ["a", "b", "c", "d"].map(image) }),
    );
    expect(view.phase).toBe("done");
    expect(view.buttons.map((button) => button.label)).toEqual(DONE_BUTTONS);
    expect(decodeAction(view.buttons[2]?.id ?? "")).toEqual({
      kind: "buy",
      imageId: "c",
      imageNumber: 3,
      generationId: "gen-1",
    });
    expect(view.buttons.slice(4).map((button) => decodeAction(button.id))).toEqual([
      ...["a", "b", "c", "d"].map((imageId, index) => ({
        kind: "upscale",
        imageId,
        imageNumber: index + 1,
        generationId: "gen-1",
      })),
      ...[1, 2, 3, 4].map((imageNumber) => ({ kind: "vary", generationId: "gen-1", imageNumber })),
      { kind: "show", generationId: "gen-1" },
      { kind: "again", generationId: "gen-1" },
    ]);
  });

  it("shows a failure's reason and offers Retry", () => {
    const view = generationView(
      generation({ status: GenerationStatus.Error, failureReason: "description not accepted" }),
    );
    expect(view).toMatchObject({ phase: "failed", status: "Failed: description not accepted" });
    expect(view.buttons.map((button) => decodeAction(button.id))).toEqual([
      { kind: "retry", generationId: "gen-1" },
    ]);
  });

  it("ranks a generation's steps so that a late event never goes back", () => {
    const ranks = [
      generation(),
      generation({ status: GenerationStatus.Processing }),
      generation({ status: GenerationStatus.Processing, images: [image("a")] }),
      generation({ status: GenerationStatus.Done, images: ["a", "b", "c", "d"].map(image) }),
    ].map(progressRank);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(new Set(ranks).size).toBe(ranks.length);
  });
});

describe("button ids", () => {
  it("round-trip, fit Discord's 100 characters, and ignore ids of others", () => {
    const buy = {
      kind: "buy",
      imageId: "0196b3c4-8f2e-7a10-9c1d-2e3f4a5b6c7d",
      imageNumber: 4,
      generationId: "0196b3c4-8f2e-7a10-9c1d-2e3f4a5b6c7e",
    } as const;
    expect(decodeAction(encodeAction(buy))).toEqual(buy);
    expect(encodeAction(buy).length).toBeLessThanOrEqual(100);
    const upscale = { ...buy, kind: "upscale" } as const;
    expect(decodeAction(encodeAction(upscale))).toEqual(upscale);
    expect(encodeAction(upscale).length).toBeLessThanOrEqual(100);
    // Buttons posted before the generation was recorded on them still buy.
    expect(decodeAction("imagehub:buy:2:img-2")).toEqual({ kind: "buy", imageId: "img-2", imageNumber: 2 });
    for (const kind of ["again", "show", "retry"] as const) {
      expect(decodeAction(encodeAction({ kind, generationId: "gen-9" }))).toEqual({
        kind,
        generationId: "gen-9",
      });
    }
    expect(decodeAction("other:buy:1:x")).toBeUndefined();
    expect(decodeAction("imagehub:buy:0:x")).toBeUndefined();
  });
});
