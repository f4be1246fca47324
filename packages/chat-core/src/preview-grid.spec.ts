import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { composeGrid } from "./preview-grid.js";

/** A JPEG of one colour, as a generation's preview (the grid only composes what it gets). */
async function aPreview(number: number, colour: { r: number; g: number; b: number }) {
  const jpeg = await sharp({ create: { width: 512, height: 288, channels: 3, background: colour } })
    .jpeg()
    .toBuffer();
  return { number, name: `image-${number}.jpg`, jpeg };
}

const RED = { r: 220, g: 30, b: 30 };
const GREEN = { r: 30, g: 200, b: 40 };
const BLUE = { r: 30, g: 40, b: 210 };
const YELLOW = { r: 230, g: 220, b: 20 };

describe("composeGrid", () => {
  it("puts the 4 previews in one JPEG, 2×2, image 1 top left to image 4 bottom right", async () => {
    const previews = await Promise.all([
      aPreview(3, BLUE),
      aPreview(1, RED),
      aPreview(4, YELLOW),
      aPreview(2, GREEN),
    ]);

    const grid = await composeGrid(previews);

    const { format, width, height } = await sharp(grid.jpeg).metadata();
    expect({ format, width, height }).toEqual({ format: "jpeg", width: 1024, height: 576 });
    expect({ width: grid.width, height: grid.height }).toEqual({ width: 1024, height: 576 });
    const quadrants = [
      { left: 0, top: 0 },
      { left: 512, top: 0 },
      { left: 0, top: 288 },
      { left: 512, top: 288 },
    ];
    const means = await Promise.all(
      quadrants.map(async ({ left, top }) => {
        // Inside the quadrant, away from JPEG's blurred edges; stats() reads its input, so the crop is made first.
        const quadrant = await sharp(grid.jpeg)
          .extract({ left: left + 16, top: top + 16, width: 480, height: 256 })
          .toBuffer();
        const { channels } = await sharp(quadrant).stats();
        return channels.slice(0, 3).map((channel) => channel.mean);
      }),
    );
    for (const [index, expected] of [RED, GREEN, BLUE, YELLOW].entries()) {
      const [r, g, b] = means[index] as number[];
      expect(Math.abs((r ?? 0) - expected.r)).toBeLessThan(12);
      expect(Math.abs((g ?? 0) - expected.g)).toBeLessThan(12);
      expect(Math.abs((b ?? 0) - expected.b)).toBeLessThan(12);
    }
  });

  it("grows as the images arrive: the places of those not drawn yet stay dark", async () => {
    const grid = await composeGrid([await aPreview(1, RED), await aPreview(2, GREEN)]);

    const { width, height } = await sharp(grid.jpeg).metadata();
    expect({ width, height }).toEqual({ width: 1024, height: 576 });
    const bottom = await sharp(grid.jpeg).extract({ left: 16, top: 304, width: 992, height: 256 }).toBuffer();
    const { channels } = await sharp(bottom).stats();
    expect(Math.max(...channels.slice(0, 3).map((channel) => channel.mean))).toBeLessThan(8);
  });

  it("refuses no preview, or previews numbered outside the grid", async () => {
    await expect(composeGrid([])).rejects.toThrow(/1 to 4 previews/);
    await expect(composeGrid([await aPreview(5, RED)])).rejects.toThrow(/not 5/);
  });
});
