import type { EngineRequest } from "@imagehub/domain";
import { describe, expect, it } from "vitest";
import { engineRequest } from "../../../../tests/support/engine-request.js";
import { BuiltinPromptOptimizer } from "./builtin-prompt-optimizer.js";

const optimizer = new BuiltinPromptOptimizer();

function optimize(description: string, overrides: Partial<EngineRequest> = {}): Promise<string> {
  return optimizer.optimize({ description, request: engineRequest({ description, ...overrides }) });
}

describe("BuiltinPromptOptimizer", () => {
  it("gives the same text for the same input", async () => {
    const settings = { aspectRatio: "3:2", timeOfDay: "sunset", camera: "Leica M6" } as const;
    expect(await optimize("a lighthouse by the sea", settings)).toBe(
      await optimize("a lighthouse by the sea", settings),
    );
  });

  it("keeps the description word for word at the start and adds to it", async () => {
    const text = await optimize("a red fox in the snow.");
    expect(text.startsWith("a red fox in the snow, ")).toBe(true);
    expect(text.length).toBeGreaterThan("a red fox in the snow".length + 40);
  });

  it("picks its phrases from the description, so other descriptions may read differently", async () => {
    const descriptions = [
      "a fox",
      "a cabin",
      "a harbour",
      "a city street",
      "a mountain lake",
      "a desert road",
    ];
    const endings = await Promise.all(
      descriptions.map(async (description) => (await optimize(description)).slice(description.length)),
    );
    expect(new Set(endings).size).toBeGreaterThan(1);
  });

  it("writes a wide panoramic composition for 16:9", async () => {
    expect(await optimize("a valley", { aspectRatio: "16:9" })).toMatch(/panoramic/);
  });

  it("writes a portrait composition for 9:16", async () => {
    expect(await optimize("a valley", { aspectRatio: "9:16" })).toMatch(/portrait/);
  });

  it("writes the light of the time of day", async () => {
    expect(await optimize("a valley", { timeOfDay: "golden hour" })).toMatch(/golden-hour/);
  });

  it("writes the light of the weather", async () => {
    expect(await optimize("a valley", { weather: "foggy" })).toMatch(/fog/);
  });

  it("names the camera with a lens", async () => {
    expect(await optimize("a valley", { camera: "Nikon F3" })).toMatch(/shot on Nikon F3 with an? .*lens/);
  });

  it("never writes the request's own description, which may hold additionalPrompt", async () => {
    const text = await optimizer.optimize({
      description: "a red fox",
      request: engineRequest({ description: "BRAND STYLE GUIDE. a red fox" }),
    });
    expect(text).not.toContain("BRAND STYLE GUIDE");
  });

  it("stays within 4096 characters for the longest description", async () => {
    const longest = "snowy ".repeat(682).concat("fox");
    const text = await optimize(longest, { timeOfDay: "night", weather: "snowy", camera: "c".repeat(100) });
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text.startsWith(longest)).toBe(true);
  });

  it("adds only the phrases that fit within 4096 characters", async () => {
    const long = "snowy ".repeat(660).concat("fox");
    const text = await optimize(long, { timeOfDay: "night", weather: "snowy", camera: "c".repeat(100) });
    expect(text.length).toBeGreaterThan(long.length);
    expect(text.length).toBeLessThanOrEqual(4096);
  });
});
