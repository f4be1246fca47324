import { compileGeneration, type GenerationParam, type ImageEngineName } from "@imagehub/domain";
import type { GenerationsConfig } from "../common/config.js";
import { InvalidRequest } from "../common/domain-errors.js";

/** What the choice reads of a generation. */
export interface EngineChoiceInput {
  mode: "simple" | "advanced";
  prompt: string;
  params: GenerationParam[];
}

/**
 * The engine that draws a generation, among the deployment's (IMAGE_ENGINES):
 * 1. the one its `engine` param names (simple mode), refused when the deployment does not run it;
 * 2. midjourney, when it asks for a Midjourney model (`version` param, `--v` or `--niji`) and the
 *    deployment runs midjourney: no other engine has those models;
 * 3. the deployment's default (IMAGE_ENGINE).
 */
export function chooseEngine(
  { engine: fallback, engines }: Pick<GenerationsConfig, "engine" | "engines">,
  generation: EngineChoiceInput,
): ImageEngineName {
  const named = generation.params.find((param) => param.name === "engine")?.value as
    | ImageEngineName
    | undefined;
  if (named !== undefined) {
    if (!engines.includes(named)) {
      throw new InvalidRequest([
        `params: engine ${named} is not one of this server's engines (${engines.join(", ")})`,
      ]);
    }
    return named;
  }
  const { advanced } = compileGeneration(generation);
  const asksForMidjourney = advanced.version !== undefined || advanced.niji !== undefined;
  return asksForMidjourney && engines.includes("midjourney") ? "midjourney" : fallback;
}
