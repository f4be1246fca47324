import type { EngineRequest } from "@imagehub/domain";

/** An engine request as the compiler makes it for a plain description, with `overrides` on top. */
export function engineRequest(overrides: Partial<EngineRequest> = {}): EngineRequest {
  return {
    description: "a red fox in the snow",
    negative: [],
    aspectRatio: "1:1",
    chaos: 0,
    stylize: 100,
    seed: undefined,
    qualityHints: [],
    template: undefined,
    timeOfDay: undefined,
    weather: undefined,
    camera: undefined,
    angle: undefined,
    photographer: undefined,
    imagePrompt: undefined,
    advanced: {},
    ...overrides,
  };
}
