import type { CreateImageGenerationRequest, ImageGeneration } from "./generations.schema.js";
import { compileGeneration, renderCommand } from "./prompt-compiler.js";

/** A seed the engines take: any 32-bit unsigned number, drawn with the platform's own generator. */
function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0] ?? 0;
}

/**
 * What `Again` creates: the generation's request once more with a new seed, so that it draws new images
 * (the same request draws the same ones: engines derive the seed of a request without one from its text).
 * imagehub's simple mode takes no seed, so a simple request is asked as its equivalent command, the one
 * the engines receive for it (the prompt compiler's renderCommand); an advanced command gets its seed
 * replaced, however it was written. Every other choice is kept, fast mode included.
 */
export function againRequest(
  generation: Pick<
    ImageGeneration,
    "name" | "prompt" | "additionalPrompt" | "mode" | "params" | "optimizedPrompt" | "processMode"
  >,
  seed: number = randomSeed(),
): CreateImageGenerationRequest {
  const request = compileGeneration({
    mode: generation.mode,
    prompt: generation.prompt,
    additionalPrompt: generation.additionalPrompt,
    params: generation.params,
    // The description as the engines drew it: the optimizer is not asked again.
    optimizedDescription: generation.optimizedPrompt,
  });
  return {
    name: generation.name,
    mode: "advanced",
    prompt: renderCommand({ ...request, seed }),
    // Fast is a choice only a dedicated-plan account can have made; every generation of any other shows
    // relax, which such an account may not ask for by name.
    ...(generation.processMode === "fast" && { processMode: "fast" as const }),
  };
}

/**
 * What `V n` creates: a new generation that varies image n. A simple-mode generation is asked again with
 * the image as its image prompt (the `fromImageUrl` parameter, replacing any it had); an advanced command
 * cannot name one, and is asked again with a new seed, as `Again` does.
 */
export function varyRequest(
  generation: Parameters<typeof againRequest>[0] & Pick<ImageGeneration, "optimizePrompt">,
  imageUrl: string,
): CreateImageGenerationRequest {
  if (generation.mode === "advanced") return againRequest(generation);
  return {
    name: generation.name,
    prompt: generation.prompt,
    mode: "simple",
    ...(generation.additionalPrompt !== undefined && { additionalPrompt: generation.additionalPrompt }),
    ...(generation.optimizePrompt && { optimizePrompt: true }),
    params: [
      ...generation.params.filter((param) => param.name !== "fromImageUrl"),
      { name: "fromImageUrl", value: imageUrl },
    ],
    ...(generation.processMode === "fast" && { processMode: "fast" as const }),
  };
}
