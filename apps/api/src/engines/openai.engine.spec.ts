import { FORMATS } from "@imagehub/domain";
import { describe, expect, it } from "vitest";
import { engineRequest } from "../../../../tests/support/engine-request.js";
import { openAiPromptFor, openAiSizeFor } from "./openai.engine.js";

describe("openAiSizeFor", () => {
  const expected: Record<(typeof FORMATS)[number], string> = {
    "1:1": "1024x1024",
    "3:2": "1536x1024",
    "2:3": "1024x1536",
    "4:7": "1024x1536",
    "7:4": "1536x1024",
    "5:4": "1536x1024",
    "4:5": "1024x1536",
    "16:9": "1536x1024",
    "9:16": "1024x1536",
  };

  it.each(FORMATS)("draws %s at the accepted size of the closest shape", (format) => {
    const { width, height } = openAiSizeFor(format);
    expect(`${width}x${height}`).toBe(expected[format]);
  });
});

describe("openAiPromptFor", () => {
  it("leaves out the framing sentence when the size drawn has the ratio asked for", () => {
    const request = engineRequest({ aspectRatio: "3:2", negative: ["people"] });
    expect(openAiPromptFor(request, { width: 1536, height: 1024 })).toBe(
      "a red fox in the snow. Leave out: people.",
    );
  });

  it("does not double the full stop of a description that has one", () => {
    const request = engineRequest({ description: "A red fox.", aspectRatio: "16:9" });
    expect(openAiPromptFor(request, { width: 1536, height: 1024 })).toBe(
      "A red fox. Composed for a 16:9 frame, the subject well inside it.",
    );
  });
});
