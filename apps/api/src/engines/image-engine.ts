import type { EngineRequest, ImageEngineName } from "@imagehub/domain";

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

/** An image prompt's picture, fetched and checked (see catalogue/image-prompt.reader.ts). */
export interface ImagePrompt {
  bytes: Buffer;
  mimeType: ImagePromptType;
  width: number;
  height: number;
}

/** The formats every engine that reads an image prompt takes. */
export const IMAGE_PROMPT_TYPES = ["image/png", "image/jpeg", "image/webp"] as const;
export type ImagePromptType = (typeof IMAGE_PROMPT_TYPES)[number];

export interface GenerateOptions {
  signal: AbortSignal;
  /** The request's image prompt, given to the engines that take one (takesImagePrompt). */
  imagePrompt?: ImagePrompt | undefined;
}

/** What every image engine does, whichever service draws the pictures. */
export interface ImageEngine {
  /** Recorded on each generation it draws, with modelFor(). */
  readonly name: ImageEngineName;
  /**
   * Whether it draws from an image prompt's picture, which the runner then fetches for it; the others read
   * the request's URL themselves (midjourney) or draw from words alone (procedural).
   */
  readonly takesImagePrompt: boolean;
  /** The model that draws `request`, when the engine names one; undefined leaves the choice to the service. */
  modelFor(request: EngineRequest): string | undefined;
  /**
   * Yields the images of one generation one by one, as each is ready, so that callers report real progress;
   * engines whose service tells how far it is also yield EngineProgress between them. Once `signal` is
   * aborted it yields nothing more and ends without an error. A failure the engine can explain to users
   * (a refused description, a refused key) is thrown as an ImageEngineError.
   */
  generate(request: EngineRequest, options: GenerateOptions): AsyncIterable<EngineOutput>;
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
