import { describe, expect, it } from "vitest";
import { againRequest, varyRequest } from "./generation-requests.js";
import { CreateImageGenerationRequestSchema } from "./generations.schema.js";
import { compileGeneration } from "./prompt-compiler.js";

describe("againRequest", () => {
  const advanced = {
    name: "a castle",
    prompt: "a castle --ar 16:9 --seed 7 --chaos 20",
    mode: "advanced" as const,
    params: [],
  };
  const simple = {
    name: "a lake",
    prompt: "a lake",
    mode: "simple" as const,
    params: [
      { name: "format", value: "16:9" },
      { name: "weather", value: "snowy" },
      { name: "interdiction", value: "boats" },
    ],
  };
  it("asks for an advanced command once more with a new seed in place of its own", () => {
    const request = againRequest(advanced, 4242);
    expect(request).toEqual({
      name: "a castle",
      mode: "advanced",
      prompt: "a castle --ar 16:9 --chaos 20 --seed 4242",
    });
    expect(CreateImageGenerationRequestSchema.safeParse(request).success).toBe(true);
    const drawn = againRequest(advanced).prompt;
    expect(drawn.match(/--seed/g)).toHaveLength(1);
    expect(compileGeneration({ mode: "advanced", prompt: drawn }).seed).not.toBe(7);
  });

  it("replaces a seed however the command wrote it (a phone's em-dash)", () => {
    const request = againRequest({ ...advanced, prompt: "a castle —seed 7 --chaos 20" }, 4242);
    expect(CreateImageGenerationRequestSchema.safeParse(request).success).toBe(true);
    expect(compileGeneration(request).seed).toBe(4242);
  });

  it("asks for a simple request as the same engine request with a seed, which simple mode cannot name", () => {
    const request = againRequest(simple, 4242);
    expect(CreateImageGenerationRequestSchema.safeParse(request).success).toBe(true);
    expect(request).toMatchObject({ name: "a lake", mode: "advanced" });
    const [original, again] = [compileGeneration(simple), compileGeneration(request)];
    expect(original.seed).toBeUndefined();
    expect(again.seed).toBe(4242);
    expect(again).toMatchObject({ aspectRatio: "16:9", negative: ["boats"], chaos: original.chaos });
    expect(again.description).toBe("a lake, high quality realistic photo, in the snow");
  });

  it("keeps the description the optimizer wrote, rather than asking for another", () => {
    const request = againRequest({ ...simple, params: [], optimizedPrompt: "a calm alpine lake at dawn" }, 1);
    expect(compileGeneration(request).description).toBe(
      "a calm alpine lake at dawn, high quality realistic photo",
    );
  });

  it("keeps fast mode, as every other choice of the generation", () => {
    const request = againRequest({ ...simple, processMode: "fast" }, 4242);
    expect(request.processMode).toBe("fast");
    expect(CreateImageGenerationRequestSchema.safeParse(request).success).toBe(true);
    expect(againRequest({ ...simple, processMode: "relax" }, 4242).processMode).toBeUndefined();
  });

  it("draws a new seed each time", () => {
    const seeds = new Set(Array.from({ length: 5 }, () => compileGeneration(againRequest(simple)).seed));
    expect(seeds.size).toBeGreaterThan(1);
  });
});

describe("varyRequest", () => {
  const simple = {
    name: "a lake",
    prompt: "a lake",
    mode: "simple" as const,
    optimizePrompt: true,
    processMode: "fast" as const,
    params: [
      { name: "format", value: "16:9" },
      { name: "fromImageUrl", value: "https://imagehub.example/an-older-start.jpg" },
    ],
  };
  const chosen = "https://imagehub.example/v1/display/preview/image-2";

  it("asks for the same simple request with the chosen image as its image prompt, every choice kept", () => {
    const request = varyRequest(simple, chosen);
    expect(request).toEqual({
      name: "a lake",
      prompt: "a lake",
      mode: "simple",
      optimizePrompt: true,
      processMode: "fast",
      params: [
        { name: "format", value: "16:9" },
        { name: "fromImageUrl", value: chosen },
      ],
    });
    expect(CreateImageGenerationRequestSchema.safeParse(request).success).toBe(true);
    expect(compileGeneration(request).imagePrompt).toBe(chosen);
  });

  it("asks for an advanced command again with a new seed (it cannot name an image prompt)", () => {
    const request = varyRequest(
      {
        name: "a castle",
        prompt: "a castle --ar 16:9 --seed 7",
        mode: "advanced",
        params: [],
        optimizePrompt: false,
      },
      chosen,
    );
    expect(request.mode).toBe("advanced");
    expect(compileGeneration(request).seed).not.toBe(7);
  });
});
