import { describe, expect, it } from "vitest";
import { parseGenerateText } from "./flag-syntax.js";

describe("parseGenerateText", () => {
  it("reads the description and every flag, quoted values whole", () => {
    expect(
      parseGenerateText(
        'a castle at dawn --format 16:9 --weather snowy --time "golden hour" --chaos 20 --stylize 300 --avoid "text, logos" --camera “35mm lens” --template realistic --optimize --fast',
      ),
    ).toEqual({
      ok: true,
      options: {
        mode: "simple",
        prompt: "a castle at dawn",
        format: "16:9",
        weather: "snowy",
        time: "golden hour",
        chaos: "20",
        stylize: "300",
        avoid: "text, logos",
        camera: "35mm lens",
        template: "realistic",
        optimize: true,
        fast: true,
      },
    });
  });

  it("takes text after --advanced as a raw third-party command", () => {
    expect(parseGenerateText("--advanced a castle --ar 16:9 --no people")).toEqual({
      ok: true,
      options: { mode: "advanced", command: "a castle --ar 16:9 --no people" },
    });
    expect(parseGenerateText("--advanced")).toEqual({
      ok: false,
      problems: ["--advanced: give the command after it"],
    });
  });

  it("names unknown flags, missing values, repeated flags and a missing description", () => {
    const result = parseGenerateText("--ar --format --weather snowy --weather rainy");
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems).toEqual([
      expect.stringMatching(/^--ar: unknown flag; known: --format, .*--fast/),
      "--format: give it a value",
      "--weather: given twice",
      "prompt: describe the image before the flags",
    ]);
  });
});
