import type { Image } from "@imagehub/domain";
import type { ImageSummary } from "./catalogue.repository.js";

/** The Display Image URL of an image: what Image.url and Image.urlFull hold. */
export function displayUrl(publicBaseUrl: string, format: "preview" | "full", imageId: string): string {
  return `${publicBaseUrl}/v1/images/${format}/${imageId}.jpg`;
}

/** An image as the interface shows it, catalogue and generated alike. */
export function toImage(publicBaseUrl: string, image: ImageSummary): Image {
  return {
    id: image.id,
    url: displayUrl(publicBaseUrl, "preview", image.id),
    urlFull: displayUrl(publicBaseUrl, "full", image.id),
    validate: image.validate,
    free: image.free,
    titles: image.titles,
  };
}
