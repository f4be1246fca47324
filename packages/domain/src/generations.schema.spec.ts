import { describe, expect, it } from "vitest";
import { EVERY_LIVE_PARAM } from "../../../tests/support/live-vocabulary.js";
import {
  CreateImageGenerationRequestSchema,
  DeleteImageGenerationsRequestSchema,
  FindImageGenerationsQuerySchema,
  GenerationParamsSchema,
  UpdateImageGenerationRequestSchema,
} from "./generations.schema.js";

const KNOWN_PARAMETERS =
  "sujetMode, templatePrompt, angle, photographe, time (or Time), weather, format, camera, interdiction, version, chaos, stylize, fromImageUrl, engine";

function messages(result: {
  success: boolean;
  error?: { issues: { path: PropertyKey[]; message: string }[] };
}) {
  return (result.error?.issues ?? []).map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

describe("GenerationParamsSchema", () => {
  it("accepts every parameter of the spec's table and returns values as text", () => {
    const result = GenerationParamsSchema.parse([
      { name: "templatePrompt", value: "realisticManuel" },
      { name: "format", value: "16:9" },
      { name: "weather", value: "snowy" },
      { name: "Time", value: "golden hour" },
      { name: "camera", value: "Leica M6" },
      { name: "chaos", value: 20 },
      { name: "stylize", value: "1000" },
      { name: "interdiction", value: "text, logos" },
    ]);
    expect(result).toContainEqual({ name: "chaos", value: "20" });
    expect(result).toContainEqual({ name: "stylize", value: "1000" });
  });

  it("accepts the live service's lower-case time", () => {
    expect(GenerationParamsSchema.parse([{ name: "time", value: "night" }])).toEqual([
      { name: "time", value: "night" },
    ]);
  });

  it("returns the spec table's Time in the live service's spelling", () => {
    expect(GenerationParamsSchema.parse([{ name: "Time", value: "night" }])).toEqual([
      { name: "time", value: "night" },
    ]);
  });

  it("accepts every parameter name the live service knows, values as text", () => {
    const params = EVERY_LIVE_PARAM;
    expect(GenerationParamsSchema.parse(params)).toEqual(params);
  });

  it.each(["__proto__", "constructor", "toString", "valueOf", "hasOwnProperty"])(
    "refuses a parameter named %s as unknown",
    (name) => {
      expect(messages(GenerationParamsSchema.safeParse([{ name, value: "1" }]))).toEqual([
        `0.name: unknown parameter "${name}"; known: ${KNOWN_PARAMETERS}`,
      ]);
    },
  );

  it.each([
    [[{ name: "format", value: "3:1" }], /^0\.value: format: /],
    [[{ name: "chaos", value: 101 }], /^0\.value: chaos: .*<=100/],
    [[{ name: "chaos", value: "lots" }], /^0\.value: chaos: must be a whole number/],
    [[{ name: "stylize", value: 1001 }], /^0\.value: stylize: .*<=1000/],
    [[{ name: "seed", value: 1 }], /^0\.name: unknown parameter "seed"/],
    [[{ name: "version", value: "latest" }], /^0\.value: version: must be a version number/],
    [[{ name: "fromImageUrl", value: "ftp://example.com/a.png" }], /^0\.value: fromImageUrl: /],
    [[{ name: "fromImageUrl", value: "not a url" }], /^0\.value: fromImageUrl: /],
    [[{ name: "angle", value: "x".repeat(101) }], /^0\.value: angle: .*<=100/],
    [
      [
        { name: "time", value: "night" },
        { name: "Time", value: "noon" },
      ],
      /^1\.name: parameter "Time" is given twice/,
    ],
  ])("refuses %j naming the parameter and the rule", (params, expected) => {
    expect(messages(GenerationParamsSchema.safeParse(params))[0]).toMatch(expected);
  });
});

describe("CreateImageGenerationRequestSchema", () => {
  const simple = { name: "fox", prompt: "a red fox in the snow", mode: "simple" };

  it("requires name, prompt and mode", () => {
    expect(
      messages(CreateImageGenerationRequestSchema.safeParse({})).map((line) => line.split(":")[0]),
    ).toEqual(["name", "prompt", "mode"]);
  });

  it("refuses params and optimizePrompt in advanced mode", () => {
    const result = CreateImageGenerationRequestSchema.safeParse({
      ...simple,
      mode: "advanced",
      optimizePrompt: true,
      params: [{ name: "chaos", value: 1 }],
    });
    expect(messages(result)).toEqual([
      "params: not allowed in advanced mode: put flags in the prompt",
      "optimizePrompt: not allowed in advanced mode",
    ]);
  });

  it("refuses fields the spec does not know", () => {
    expect(messages(CreateImageGenerationRequestSchema.safeParse({ ...simple, colour: "red" }))[0]).toMatch(
      /colour/,
    );
  });

  it("bounds the prompt at 4096 characters", () => {
    expect(
      CreateImageGenerationRequestSchema.safeParse({ ...simple, prompt: "a".repeat(4096) }).success,
    ).toBe(true);
    expect(
      CreateImageGenerationRequestSchema.safeParse({ ...simple, prompt: "a".repeat(4097) }).success,
    ).toBe(false);
  });
});

describe("the prompt rules of CreateImageGenerationRequestSchema", () => {
  const body = { name: "fox", prompt: "a red fox in the snow", mode: "simple" };

  it("refuses a flag in a simple-mode prompt, naming it", () => {
    const result = CreateImageGenerationRequestSchema.safeParse({ ...body, prompt: "a red fox --ar 16:9" });
    expect(messages(result)).toEqual([
      "prompt: flags such as --ar are not allowed in simple mode; use params",
    ]);
  });

  it("refuses an em-dash flag in a simple-mode prompt", () => {
    const result = CreateImageGenerationRequestSchema.safeParse({ ...body, prompt: "a red fox —chaos 5" });
    expect(messages(result)).toEqual([
      "prompt: flags such as —chaos are not allowed in simple mode; use params",
    ]);
  });

  it("accepts an advanced-mode prompt with well-formed flags", () => {
    const prompt = "a red fox --ar 16:9 --chaos 20 --no text, logos --style raw";
    expect(CreateImageGenerationRequestSchema.safeParse({ ...body, mode: "advanced", prompt }).success).toBe(
      true,
    );
  });

  it("refuses an advanced-mode flag out of range, naming the flag and the rule", () => {
    const result = CreateImageGenerationRequestSchema.safeParse({
      ...body,
      mode: "advanced",
      prompt: "a red fox --chaos 101",
    });
    expect(messages(result)).toEqual(["prompt: --chaos: must be a whole number from 0 to 100"]);
  });

  it("refuses an unknown advanced-mode flag", () => {
    const result = CreateImageGenerationRequestSchema.safeParse({
      ...body,
      mode: "advanced",
      prompt: "a red fox --zoom 2",
    });
    expect(messages(result)[0]).toMatch(/^prompt: --zoom: unknown flag/);
  });

  it("refuses an advanced-mode prompt made of flags only", () => {
    const result = CreateImageGenerationRequestSchema.safeParse({
      ...body,
      mode: "advanced",
      prompt: "--ar 1:1",
    });
    expect(messages(result)).toEqual(["prompt: the description before the flags is empty"]);
  });

  it("reports the prompt's problems after those of params and optimizePrompt", () => {
    const result = CreateImageGenerationRequestSchema.safeParse({
      ...body,
      mode: "advanced",
      prompt: "a red fox --c 1 --chaos 2",
      optimizePrompt: true,
    });
    expect(messages(result)).toEqual([
      "optimizePrompt: not allowed in advanced mode",
      "prompt: --chaos: given twice (--c already sets it); a flag may be given once",
    ]);
  });
});

describe("the prompt rules of UpdateImageGenerationRequestSchema", () => {
  it("checks the prompt against the mode given with it", () => {
    const result = UpdateImageGenerationRequestSchema.safeParse({ mode: "simple", prompt: "a fox --seed 3" });
    expect(messages(result)).toEqual([
      "prompt: flags such as --seed are not allowed in simple mode; use params",
    ]);
  });

  it("refuses, without a mode, a prompt that neither mode accepts", () => {
    const result = UpdateImageGenerationRequestSchema.safeParse({ prompt: "a fox --stylize 5000" });
    expect(messages(result)).toEqual(["prompt: --stylize: must be a whole number from 0 to 1000"]);
  });

  it("accepts, without a mode, a prompt with flags that advanced mode accepts", () => {
    expect(UpdateImageGenerationRequestSchema.safeParse({ prompt: "a fox --stylize 500" }).success).toBe(
      true,
    );
  });

  it("accepts an update that leaves the prompt alone", () => {
    expect(UpdateImageGenerationRequestSchema.safeParse({ mode: "advanced", name: "fox" }).success).toBe(
      true,
    );
  });
});

describe("DeleteImageGenerationsRequestSchema", () => {
  it("refuses an empty list, which the live service silently accepts", () => {
    expect(DeleteImageGenerationsRequestSchema.safeParse({ printIds: [] }).success).toBe(false);
    expect(DeleteImageGenerationsRequestSchema.safeParse({}).success).toBe(false);
  });
});

describe("FindImageGenerationsQuerySchema", () => {
  it("reads numbers from the query string and applies defaults", () => {
    expect(FindImageGenerationsQuerySchema.parse({ limit: "5", status: "3" })).toEqual({
      limit: 5,
      offset: 0,
      sort: "newest",
      status: 3,
    });
  });

  it("refuses a page larger than 100 and an unknown status", () => {
    expect(FindImageGenerationsQuerySchema.safeParse({ limit: "101" }).success).toBe(false);
    expect(FindImageGenerationsQuerySchema.safeParse({ status: "9" }).success).toBe(false);
  });
});
