import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { meanDifference } from "../../../../tests/support/images.js";
import { renderBuiltinImage } from "./builtin.engine.js";
import { readScene } from "./landscape-scene.js";

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

describe("readScene", () => {
  it("reads the time of day and the weather from English or French words", () => {
    expect(readScene("a misty lake at dawn")).toMatchObject({ timeOfDay: "sunrise", weather: "foggy" });
    expect(readScene("la place à l'heure dorée, sous un ciel nuageux")).toMatchObject({
      timeOfDay: "golden hour",
      weather: "cloudy",
    });
    expect(readScene("a red fox")).toMatchObject({ timeOfDay: undefined, weather: undefined });
  });

  it("draws the elements the description names, and sun, stars and clouds unless refused", () => {
    expect([...readScene("des forêts au bord de la mer").elements].sort()).toEqual([
      "clouds",
      "stars",
      "sun",
      "trees",
      "water",
    ]);
  });

  it("leaves out the elements a negative term names", () => {
    const { elements } = readScene("a cabin in a pine forest by a lake", ["trees", "the moon"]);
    expect(elements.has("trees")).toBe(false);
    expect(elements.has("sun")).toBe(false);
    expect(elements.has("water")).toBe(true);
  });
});
