import { createHash } from "node:crypto";
import { setTimeout } from "node:timers/promises";
import type { EngineRequest } from "@imagehub/domain";
import { CHAOS_MAX, IMAGES_PER_GENERATION, STYLIZE_DEFAULT, STYLIZE_MAX } from "@imagehub/domain";
import { createRandomFromText } from "../common/seeded-random.js";
import { dimensionsFor } from "./aspect-ratio.js";
import { renderLandscape } from "./builtin.engine.js";
import type { GeneratedImage, ImageEngine } from "./image-engine.js";
import { readScene } from "./landscape-scene.js";

const PROCEDURAL_LONG_EDGE = 1024;
/** Even at chaos 0 the images of a generation must differ: this much of each stays the image's own. */
const MIN_VARIATION = 0.12;

/**
 * The engine that needs no outside service: the catalogue's landscape renderer, steered by the request's
 * fields. The same request always gives the same four images.
 */
export class ProceduralEngine implements ImageEngine {
  readonly name = "procedural";
  /** It draws from words alone. */
  readonly takesImagePrompt = false;

  /** `imageDelayMs`: a pause before each image, to go at a real engine's pace. */
  constructor(private readonly options: { imageDelayMs: number } = { imageDelayMs: 0 }) {}

  /** One renderer, without versions to tell apart. */
  modelFor(): undefined {
    return undefined;
  }

  async *generate(
    request: EngineRequest,
    { signal }: { signal: AbortSignal },
  ): AsyncIterable<GeneratedImage> {
    const seed = request.seed ?? seedFromText(request);
    const { width, height } = dimensionsFor(request.aspectRatio, PROCEDURAL_LONG_EDGE);
    const fromWords = readScene(request.description, request.negative);
    const variation =
      MIN_VARIATION + ((1 - MIN_VARIATION) * Math.min(Math.max(request.chaos, 0), CHAOS_MAX)) / CHAOS_MAX;
    const style = stylizeStrength(request.stylize);
    for (let index = 0; index < IMAGES_PER_GENERATION; index += 1) {
      if (this.options.imageDelayMs > 0) {
        await setTimeout(this.options.imageDelayMs, undefined, { signal }).catch(() => {});
      }
      if (signal.aborted) return;
      const jpeg = await renderLandscape({
        width,
        height,
        timeOfDay: request.timeOfDay ?? fromWords.timeOfDay,
        weather: request.weather ?? fromWords.weather,
        elements: fromWords.elements,
        // The generation's shared layout, pulled towards each image's own by chaos.
        randomFor: (part) =>
          blend(
            createRandomFromText(`${seed}:${request.description}:${part}`),
            createRandomFromText(`${seed}/${index}:${request.description}:${part}`),
            variation,
          ),
        saturation: 1 + 0.25 * style,
        contrast: 1 + 0.12 * style,
      });
      yield { index, jpeg, width, height, seed };
    }
  }
}

/** A seed for requests without one, so that the same text still gives the same images (procedural, comfyui). */
export function seedFromText({ description, negative }: EngineRequest): number {
  return createHash("sha256")
    .update(`${description}\n${negative.join("\n")}`)
    .digest()
    .readUInt32LE(0);
}

/** Draws from `shared` moved towards `own` by `amount`: 0 keeps the shared draw, 1 takes the image's own. */
function blend(shared: () => number, own: () => number, amount: number): () => number {
  return () => {
    const base = shared();
    return base + (own() - base) * amount;
  };
}

/** -1 at stylize 0, 0 at the default 100, 1 at STYLIZE_MAX: the pictures only get mildly bolder or duller. */
function stylizeStrength(stylize: number): number {
  const clamped = Math.min(Math.max(stylize, 0), STYLIZE_MAX);
  return clamped <= STYLIZE_DEFAULT
    ? (clamped - STYLIZE_DEFAULT) / STYLIZE_DEFAULT
    : (clamped - STYLIZE_DEFAULT) / (STYLIZE_MAX - STYLIZE_DEFAULT);
}
