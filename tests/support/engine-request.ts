import { compileGeneration, type EngineRequest } from "@imagehub/domain";

/** An engine request as the compiler makes it for a plain description, with `overrides` on top. */
export function engineRequest(overrides: Partial<EngineRequest> = {}): EngineRequest {
  return { ...compileGeneration({ mode: "advanced", prompt: "a red fox in the snow" }), ...overrides };
}
