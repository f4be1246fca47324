import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { meanDifference } from "../../../../tests/support/images.js";
import { renderBuiltinImage } from "../engines/builtin.engine.js";
import { previewRendition, uhdRendition, upscaleRendition, watermarkedFullRendition } from "./renditions.js";

const size = async (jpeg: Buffer) => {
  const { format, width, height } = await sharp(jpeg).metadata();
  return { format, width, height };
};

/** Mean difference of the four quadrants: a watermark covers the whole picture, not one corner. */
async function quadrantDifferences(a: Buffer, b: Buffer): Promise<number[]> {
  const { width = 0, height = 0 } = await sharp(a).metadata();
  const halves = [0, 1].flatMap((row) =>
    [0, 1].map((column) => ({ left: (column * width) / 2, top: (row * height) / 2 })),
  );
  return Promise.all(
    halves.map(async ({ left, top }) => {
      const region = {
        left: Math.floor(left),
        top: Math.floor(top),
        width: Math.floor(width / 2),
        height: Math.floor(height / 2),
      };
      return meanDifference(
        await sharp(a).extract(region).toBuffer(),
        await sharp(b).extract(region).toBuffer(),
      );
    }),
  );
}

describe("renditions", () => {
  let original: Buffer;

  beforeAll(async () => {
    original = await renderBuiltinImage({
      prompt: "a sailing boat at sunset",
      seed: 5,
      width: 1536,
      height: 1024,
    });
  });

  it("preview: at most 512 px, watermarked, never enlarged", async () => {
    const preview = await previewRendition(original);
    expect(await size(preview)).toEqual({ format: "jpeg", width: 512, height: 341 });
    expect(await meanDifference(preview, original)).toBeGreaterThan(6);
    const small = await renderBuiltinImage({ prompt: "x", seed: 1, width: 320, height: 200 });
    expect(await size(await previewRendition(small))).toEqual({ format: "jpeg", width: 320, height: 200 });
  });

  it("full watermarked: the original size with the watermark over all of it", async () => {
    const watermarked = await watermarkedFullRendition(original);
    expect(await size(watermarked)).toEqual({ format: "jpeg", width: 1536, height: 1024 });
    for (const difference of await quadrantDifferences(watermarked, original))
      expect(difference).toBeGreaterThan(5);
  });

  it("upscale: exactly twice the size, clean", async () => {
    const upscale = await upscaleRendition(original);
    expect(await size(upscale)).toEqual({ format: "jpeg", width: 3072, height: 2048 });
    expect(await meanDifference(original, upscale)).toBeLessThan(3);
  });

  it("UHD: 3840 px on the long edge, aspect kept, clean", async () => {
    const uhd = await uhdRendition(original);
    expect(await size(uhd)).toEqual({ format: "jpeg", width: 3840, height: 2560 });
    expect(await meanDifference(original, uhd)).toBeLessThan(3);
  });
});
