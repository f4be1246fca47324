import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../common/config.js";
import { InvalidRequest } from "../common/domain-errors.js";
import { chooseEngine } from "./engine-choice.js";

const configured = {
  engine: "procedural" as const,
  engines: ["procedural" as const, "comfyui" as const, "midjourney" as const],
};
const simple = (params: { name: string; value: string }[] = []) => ({
  mode: "simple" as const,
  prompt: "a red fox in the snow",
  params,
});

describe("chooseEngine", () => {
  it("takes the engine the params name", () => {
    expect(chooseEngine(configured, simple([{ name: "engine", value: "comfyui" }]))).toBe("comfyui");
  });

  it("refuses an engine the server does not run, naming those it does", () => {
    expect(() => chooseEngine(configured, simple([{ name: "engine", value: "openai" }]))).toThrow(
      new InvalidRequest([
        "params: engine openai is not one of this server's engines (procedural, comfyui, midjourney)",
      ]),
    );
  });

  it("gives a Midjourney model version to midjourney when the server runs it", () => {
    expect(chooseEngine(configured, simple([{ name: "version", value: "6.1" }]))).toBe("midjourney");
    expect(chooseEngine(configured, { mode: "advanced", prompt: "a red fox --niji 6", params: [] })).toBe(
      "midjourney",
    );
    expect(
      chooseEngine({ engine: "comfyui", engines: ["comfyui"] }, simple([{ name: "version", value: "7" }])),
    ).toBe("comfyui");
  });

  it("lets the engine named win over a version", () => {
    const params = [
      { name: "version", value: "7" },
      { name: "engine", value: "comfyui" },
    ];
    expect(chooseEngine(configured, simple(params))).toBe("comfyui");
  });

  it("takes the default otherwise", () => {
    expect(chooseEngine(configured, simple())).toBe("procedural");
  });
});

describe("the engines' configuration", () => {
  it("is IMAGE_ENGINE alone without IMAGE_ENGINES", () => {
    expect(loadConfig({ IMAGE_ENGINE: "procedural" }).generations.engines).toEqual(["procedural"]);
  });

  it("refuses a default that is not among IMAGE_ENGINES", () => {
    expect(() => loadConfig({ IMAGE_ENGINES: "procedural,comfyui", IMAGE_ENGINE: "openai" })).toThrow(
      new ConfigError(
        "Invalid configuration: IMAGE_ENGINE: openai is not among IMAGE_ENGINES (procedural, comfyui)",
      ),
    );
  });

  it("reads each engine's concurrency, refusing an engine that is not configured", () => {
    const env = { IMAGE_ENGINES: "procedural,comfyui", IMAGE_ENGINE_CONCURRENCY: "comfyui=1" };
    expect(loadConfig(env).generations.engineConcurrency).toEqual({ comfyui: 1 });
    expect(() => loadConfig({ ...env, IMAGE_ENGINE_CONCURRENCY: "comfyui=1,openai=4" })).toThrow(
      "IMAGE_ENGINE_CONCURRENCY: openai is not among IMAGE_ENGINES",
    );
  });

  it("needs the settings each configured engine cannot do without", () => {
    expect(() => loadConfig({ IMAGE_ENGINES: "procedural,openai" })).toThrow(
      "OPENAI_API_KEY: required when openai is among the image engines",
    );
  });
});
