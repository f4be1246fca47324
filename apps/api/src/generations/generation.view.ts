import type { Generation, Prisma } from "@imagehub/db";
import {
  canonicalParamName,
  type GenerationParam,
  GenerationStatus,
  type ImageGeneration,
} from "@imagehub/domain";
import type { ImageSummary } from "../catalogue/catalogue.repository.js";
import { toImage } from "../catalogue/display-url.js";

/** An image row as Prisma reads it: `titles` is JSON there, a language → title map by construction. */
type ImageRow = Omit<ImageSummary, "titles"> & { titles: Prisma.JsonValue };

/** A generation with its stored images, in the order the engine made them. */
export interface GenerationWithImages extends Generation {
  images: ImageRow[];
}

/** How a generation reads to clients: the interface's answers and the `data` of its events. */
export type GenerationView = (generation: GenerationWithImages) => ImageGeneration;

export function generationView(publicBaseUrl: string): GenerationView {
  return (generation) => toImageGeneration(publicBaseUrl, generation);
}

/** The ImageGeneration the interface answers, and the `data` of every webhook event about it. */
export function toImageGeneration(publicBaseUrl: string, generation: GenerationWithImages): ImageGeneration {
  return {
    id: generation.id,
    name: generation.name,
    prompt: generation.prompt,
    ...(generation.additionalPrompt !== null && { additionalPrompt: generation.additionalPrompt }),
    ...(generation.optimizedPrompt !== null && { optimizedPrompt: generation.optimizedPrompt }),
    mode: generation.mode,
    optimizePrompt: generation.optimizePrompt,
    processMode: generation.processMode,
    status: generation.status as GenerationStatus,
    params: inLiveSpelling(generation.params as unknown as GenerationParam[]),
    images: generation.images.map((image) =>
      toImage(publicBaseUrl, { ...image, titles: image.titles as Record<string, string> }),
    ),
    nbImages: generation.images.length,
    tags: generation.tags,
    metaData: generation.metaData as Record<string, unknown>,
    ...(generation.failureReason !== null && { failureReason: generation.failureReason }),
    // A running engine's measure; once the generation is over, its status and images say it all.
    ...(generation.status === GenerationStatus.Processing &&
      generation.progress !== null && { progress: generation.progress }),
    ...(generation.engine !== null && {
      engine: {
        name: generation.engine,
        ...(generation.engineModel !== null && { model: generation.engineModel }),
      },
    }),
    createdAt: generation.createdAt.toISOString(),
  };
}

/** Rows stored before names were kept in the live service's spelling (`Time`) are answered in it too. */
function inLiveSpelling(params: GenerationParam[]): GenerationParam[] {
  return params.map(({ name, value }) => ({ name: canonicalParamName(name) ?? name, value }));
}
