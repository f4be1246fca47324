import type { EngineRequest } from "@imagehub/domain";

export interface GeneratedImage {
  /** 0–3: the image's place in its generation. */
  index: number;
  jpeg: Buffer;
  width: number;
  height: number;
  /**
   * The generation's seed (derived when the request had none): with the same request the procedural engine
   * and sdwebui give it again. Engines that take none (openai) report the request's, or 0.
   */
  seed: number;
}

/** How far an engine is between two images, by its service's own measure. */
export interface EngineProgress {
  /** 0–1. */
  fraction: number;
}

/** What an engine yields: each image as it is ready, and from some engines their progress meanwhile. */
export type EngineOutput = GeneratedImage | EngineProgress;

/** What every image engine does, whichever service draws the pictures. */
export interface ImageEngine {
  /** Recorded on each generation it draws, with modelFor(). */
  readonly name: string;
  /** The model that draws `request`, when the engine names one; undefined leaves the choice to the service. */
  modelFor(request: EngineRequest): string | undefined;
  /**
   * Yields the images of one generation one by one, as each is ready, so that callers report real progress;
   * engines whose service tells how far it is also yield EngineProgress between them. Once `signal` is
   * aborted it yields nothing more and ends without an error. A failure the engine can explain to users
   * (a refused description, a refused key) is thrown as an ImageEngineError.
   */
  generate(request: EngineRequest, options: { signal: AbortSignal }): AsyncIterable<EngineOutput>;
}

/** An engine's failure whose message is the generation's failureReason, word for word. */
export class ImageEngineError extends Error {}

/** Why a refused generation ends in Error (imagehub's moderation or the engine's), as users read it. */
export const DESCRIPTION_NOT_ACCEPTED = "description not accepted";

export function isProgress(output: EngineOutput): output is EngineProgress {
  return "fraction" in output;
}

/**
 * `outputs`, ending quietly instead of failing once `signal` is aborted, as generate() promises: an abort
 * interrupts whatever call the engine was making.
 */
export async function* endQuietlyOnAbort<T>(
  signal: AbortSignal,
  outputs: AsyncIterable<T>,
): AsyncIterable<T> {
  try {
    yield* outputs;
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

/** Nest injection token for the engine configuration chose (see engines.module.ts). */
export const IMAGE_ENGINE = Symbol("ImageEngine");
