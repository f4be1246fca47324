import { describe, expect, it } from "vitest";
import { cfgScaleFor } from "./sdwebui.engine.js";

describe("cfgScaleFor", () => {
  it.each([
    [0, 10],
    [50, 8.5],
    [100, 7],
    [550, 5],
    [1000, 3],
    [5000, 3],
  ])("turns stylize %i into cfg_scale %d: the freer the style, the looser the guidance", (stylize, scale) => {
    expect(cfgScaleFor(stylize)).toBe(scale);
  });
});
