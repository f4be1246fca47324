import type { EngineRequest } from "@imagehub/domain";

export interface GeneratedImage {
  /** 0–3: the image's place in its generation. */
  index: number;
  jpeg: Buffer;
  width: number;
  height: number;
  /** The generation's seed (derived when the request had none): with the same request it gives it again. */
  seed: number;
}

/** What every image engine does, whichever service draws the pictures. */
export interface ImageEngine {
  readonly name: string;
  /**
   * Yields the images of one generation one by one, as each is ready, so that callers report real progress.
   * Once `signal` is aborted it yields nothing more and ends without an error.
   */
  generate(request: EngineRequest, options: { signal: AbortSignal }): AsyncIterable<GeneratedImage>;
}

/** Nest injection token for the engine configuration chose (see engines.module.ts). */
export const IMAGE_ENGINE = Symbol("ImageEngine");
