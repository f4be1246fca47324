import { describe, expect, it } from "vitest";
import { dimensionsFor, dimensionsWithin } from "./aspect-ratio.js";

describe("dimensionsFor", () => {
  it.each([
    ["16:9", { width: 1536, height: 864 }],
    ["9:16", { width: 864, height: 1536 }],
    ["1:1", { width: 1536, height: 1536 }],
    ["4:7", { width: 880, height: 1536 }],
  ])(
    "sizes the spec's format %s with the long edge given and the short one a multiple of 8",
    (ratio, size) => {
      expect(dimensionsFor(ratio, 1536)).toEqual(size);
    },
  );

  it.each([
    ["21:9", { width: 1024, height: 440 }],
    ["3:1", { width: 1024, height: 344 }],
    ["2:5", { width: 408, height: 1024 }],
  ])("sizes any other ratio such as %s the same way", (ratio, size) => {
    expect(dimensionsFor(ratio, 1024)).toEqual(size);
  });

  it("clamps ratios more elongated than 4:1", () => {
    expect(dimensionsFor("10:1", 1024)).toEqual({ width: 1024, height: 256 });
    expect(dimensionsFor("1:32", 1024)).toEqual({ width: 256, height: 1024 });
  });

  it.each(["16x9", "0:1", "16:", "-1:2", "1.5:1"])("refuses %s, which is not a W:H ratio", (ratio) => {
    expect(() => dimensionsFor(ratio, 1024)).toThrow(/invalid aspect ratio/);
  });
});

describe("dimensionsWithin", () => {
  it.each([
    ["16:9", 1536, 1024, { width: 1536, height: 864 }],
    ["9:16", 1024, 1536, { width: 864, height: 1536 }],
    ["1:1", 1024, 1536, { width: 1024, height: 1024 }],
    ["4:5", 1024, 1536, { width: 1024, height: 1280 }],
    ["16:9", 1456, 816, { width: 1450, height: 816 }],
    ["3:2", 1536, 1024, { width: 1536, height: 1024 }],
  ])("crops %s out of %i × %i as %j", (ratio, width, height, size) => {
    expect(dimensionsWithin(ratio, width, height)).toEqual(size);
  });
});
