import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { meanDifference } from "../../../../tests/support/images.js";
import { dimensionsFor } from "./aspect-ratio.js";
import { renderBuiltinImage } from "./builtin.engine.js";

async function meanBrightness(jpeg: Buffer): Promise<number> {
  const { channels } = await sharp(jpeg).stats();
  return channels.slice(0, 3).reduce((sum, channel) => sum + channel.mean, 0) / 3;
}

describe("renderBuiltinImage", () => {
  it("renders a JPEG of the asked size", async () => {
    const jpeg = await renderBuiltinImage({ prompt: "a red fox", seed: 1, width: 768, height: 432 });
    expect(await sharp(jpeg).metadata()).toMatchObject({ format: "jpeg", width: 768, height: 432 });
  });

  it("gives the same picture for the same prompt and seed", async () => {
    const input = { prompt: "a lighthouse by the sea", seed: 7, width: 512, height: 512 };
    expect((await renderBuiltinImage(input)).equals(await renderBuiltinImage(input))).toBe(true);
  });

  it("gives different pictures for another seed or another prompt", async () => {
    const base = { prompt: "a cabin in a pine forest", seed: 1, width: 512, height: 512 };
    const original = await renderBuiltinImage(base);
    expect(await meanDifference(original, await renderBuiltinImage({ ...base, seed: 2 }))).toBeGreaterThan(
      10,
    );
    expect(
      await meanDifference(original, await renderBuiltinImage({ ...base, prompt: "a city at night" })),
    ).toBeGreaterThan(10);
  });

  it("follows the words of the prompt: night is darker than a sunny beach, snow lighter", async () => {
    const render = (prompt: string) => renderBuiltinImage({ prompt, seed: 3, width: 512, height: 512 });
    const night = await meanBrightness(await render("a harbour at night"));
    const beach = await meanBrightness(await render("a sunny beach"));
    const snow = await meanBrightness(await render("un chalet sous la neige"));
    expect(night).toBeLessThan(beach - 40);
    expect(snow).toBeGreaterThan(beach);
  });
});

describe("dimensionsFor", () => {
  it.each([
    ["16:9", { width: 1536, height: 864 }],
    ["9:16", { width: 864, height: 1536 }],
    ["1:1", { width: 1536, height: 1536 }],
    ["4:7", { width: 880, height: 1536 }],
  ])("sizes %s with the long edge given and the short one a multiple of 8", (format, size) => {
    expect(dimensionsFor(format, 1536)).toEqual(size);
  });

  it("refuses a format the spec does not list", () => {
    expect(() => dimensionsFor("3:1", 1536)).toThrow(/unknown format/);
  });
});
