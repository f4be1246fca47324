import type { EngineRequest } from "@imagehub/domain";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { engineRequest as compiledRequest } from "../../../../tests/support/engine-request.js";
import { jpegSize, meanDifference } from "../../../../tests/support/images.js";
import type { GeneratedImage } from "./image-engine.js";

/** sharp as the engine sees it: counts rasterisations, to see whether it renders ahead of what it handed over. */
const rasterise = vi.fn(sharp);
let ProceduralEngine: typeof import("./procedural.engine.js").ProceduralEngine;

// The unit tier's files share their modules (no isolation): the engine is imported afresh beside the
// counting sharp, which is taken away again after this file.
beforeAll(async () => {
  vi.doMock("sharp", () => ({ default: rasterise }));
  vi.resetModules();
  ({ ProceduralEngine } = await import("./procedural.engine.js"));
});
afterAll(() => {
  vi.doUnmock("sharp");
  vi.resetModules();
});

function engineRequest(overrides: Partial<EngineRequest> = {}): EngineRequest {
  return compiledRequest({
    description: "a cabin in a pine forest by a lake below the mountains",
    seed: 42,
    ...overrides,
  });
}

async function generate(
  request: EngineRequest,
  signal = new AbortController().signal,
): Promise<GeneratedImage[]> {
  const images: GeneratedImage[] = [];
  for await (const image of new ProceduralEngine().generate(request, { signal })) images.push(image);
  return images;
}

async function first(request: EngineRequest): Promise<Buffer> {
  const [image] = await generate(request);
  if (!image) throw new Error("no image generated");
  return image.jpeg;
}

async function channelMeans(jpeg: Buffer): Promise<number[]> {
  const { channels } = await sharp(jpeg).stats();
  return channels.slice(0, 3).map((channel) => channel.mean);
}

async function meanBrightness(jpeg: Buffer): Promise<number> {
  const means = await channelMeans(jpeg);
  return means.reduce((sum, mean) => sum + mean, 0) / means.length;
}

/** Mean of max−min over the pixels' channels: 0 for greys, higher for vivid colours. */
async function meanChroma(jpeg: Buffer): Promise<number> {
  const pixels = await sharp(jpeg).removeAlpha().raw().toBuffer();
  let total = 0;
  for (let index = 0; index < pixels.length; index += 3) {
    const rgb = [pixels[index] ?? 0, pixels[index + 1] ?? 0, pixels[index + 2] ?? 0];
    total += Math.max(...rgb) - Math.min(...rgb);
  }
  return total / (pixels.length / 3);
}

async function pairwiseDifferences(images: GeneratedImage[]): Promise<number[]> {
  const differences: number[] = [];
  for (const [position, image] of images.entries())
    for (const other of images.slice(position + 1))
      differences.push(await meanDifference(image.jpeg, other.jpeg));
  return differences;
}

const average = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

describe("ProceduralEngine", () => {
  it("is named procedural", () => {
    expect(new ProceduralEngine().name).toBe("procedural");
  });

  it.each([
    ["1:1", 1024, 1024],
    ["16:9", 1024, 576],
    ["9:16", 576, 1024],
    ["21:9", 1024, 440],
  ])("renders 4 JPEGs of %s with a 1024 px long edge", async (aspectRatio, width, height) => {
    const images = await generate(engineRequest({ aspectRatio }));
    expect(images.map((image) => image.index)).toEqual([0, 1, 2, 3]);
    for (const image of images) {
      expect(image).toMatchObject({ width, height, seed: 42 });
      expect(await jpegSize(image.jpeg)).toEqual({ format: "jpeg", width, height });
    }
  });

  it("gives the same bytes for the same request", async () => {
    const [once, again] = [await generate(engineRequest()), await generate(engineRequest())];
    expect(again.map((image) => image.jpeg.equals(once[image.index]?.jpeg ?? Buffer.alloc(0)))).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it("derives a seed from the request's text when it has none, so that it is reproducible too", async () => {
    const request = engineRequest({ seed: undefined });
    const [once, again] = [await generate(request), await generate(request)];
    expect(once[0]?.seed).toEqual(expect.any(Number));
    expect(again[0]?.seed).toBe(once[0]?.seed);
    expect(again[0]?.jpeg.equals(once[0]?.jpeg ?? Buffer.alloc(0))).toBe(true);
    const [other] = await generate(
      engineRequest({ seed: undefined, description: "a lighthouse by the sea" }),
    );
    expect(other?.seed).not.toBe(once[0]?.seed);
  });

  it("makes the 4 images of a generation differ from one another, even at chaos 0", async () => {
    const differences = await pairwiseDifferences(await generate(engineRequest({ chaos: 0 })));
    expect(Math.min(...differences)).toBeGreaterThan(2);
  });

  it("makes the 4 images differ much more at chaos 100 than at chaos 0", async () => {
    const calm = average(await pairwiseDifferences(await generate(engineRequest({ chaos: 0 }))));
    const wild = average(await pairwiseDifferences(await generate(engineRequest({ chaos: 100 }))));
    expect(wild).toBeGreaterThan(calm * 2);
  });

  it("darkens the night: night is much darker than afternoon", async () => {
    const night = await meanBrightness(await first(engineRequest({ timeOfDay: "night" })));
    const afternoon = await meanBrightness(await first(engineRequest({ timeOfDay: "afternoon" })));
    expect(night).toBeLessThan(afternoon - 50);
  });

  it("falls back to the description's words for the time, the request's field winning", async () => {
    const description = "a cabin in a pine forest at night";
    const fromWords = await meanBrightness(await first(engineRequest({ description })));
    const fromField = await meanBrightness(
      await first(engineRequest({ description, timeOfDay: "afternoon" })),
    );
    expect(fromWords).toBeLessThan(fromField - 50);
  });

  it("whitens snowy weather and darkens a thunderstorm", async () => {
    const snowy = await channelMeans(await first(engineRequest({ weather: "snowy" })));
    const thunderstorm = await channelMeans(await first(engineRequest({ weather: "thunderstorm" })));
    for (const [channel, mean] of snowy.entries()) {
      expect(mean).toBeGreaterThan(150);
      expect(mean).toBeGreaterThan((thunderstorm[channel] ?? 0) + 50);
    }
  });

  it("draws no trees when the negative says so", async () => {
    const withTrees = await first(engineRequest());
    const withoutTrees = await first(engineRequest({ negative: ["trees"] }));
    expect(await meanDifference(withTrees, withoutTrees)).toBeGreaterThan(1);
  });

  it("makes colours bolder as stylize grows", async () => {
    const plain = await meanChroma(await first(engineRequest({ stylize: 0 })));
    const bold = await meanChroma(await first(engineRequest({ stylize: 1000 })));
    expect(bold).toBeGreaterThan(plain * 1.2);
  });

  it("hands over each image before rendering the next", async () => {
    const iterator = new ProceduralEngine()
      .generate(engineRequest(), { signal: new AbortController().signal })
      [Symbol.asyncIterator]();
    rasterise.mockClear();
    for (const index of [0, 1, 2, 3]) {
      const { value } = await iterator.next();
      expect(value?.index).toBe(index);
      expect(rasterise).toHaveBeenCalledTimes(index + 1);
    }
    expect(await iterator.next()).toMatchObject({ done: true });
  });

  it("stops after the current image once aborted", async () => {
    const controller = new AbortController();
    const images: GeneratedImage[] = [];
    for await (const image of new ProceduralEngine().generate(engineRequest(), {
      signal: controller.signal,
    })) {
      images.push(image);
      controller.abort();
    }
    expect(images.map((image) => image.index)).toEqual([0]);
  });

  it("renders nothing when aborted before it starts", async () => {
    expect(await generate(engineRequest(), AbortSignal.abort())).toEqual([]);
  });

  it("waits before each image when asked to, and stops waiting once aborted", async () => {
    const controller = new AbortController();
    const iterator = new ProceduralEngine({ imageDelayMs: 60_000 })
      .generate(engineRequest(), { signal: controller.signal })
      [Symbol.asyncIterator]();
    const rendered = rasterise.mock.calls.length;
    const next = iterator.next();
    const settled = vi.fn();
    void next.then(settled);
    // Whatever does not wait for the delay has run once the event loop has gone round.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).not.toHaveBeenCalled();
    controller.abort();
    expect(await next).toMatchObject({ done: true });
    expect(rasterise.mock.calls.length).toBe(rendered);
  });
});
