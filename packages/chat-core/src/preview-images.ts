import type { ImagehubClient } from "@imagehub/client";
import type { GenerationView } from "./generation-view.js";

export interface PreviewFile {
  number: number;
  name: string;
  jpeg: Buffer;
}

/**
 * The watermarked previews of a finished generation, fetched through the API so that a bot can upload
 * them: chat users then see the images even when the API is not reachable from the internet.
 */
export function fetchPreviews(client: ImagehubClient, view: GenerationView): Promise<PreviewFile[]> {
  return Promise.all(
    view.images.map(async ({ number, imageId }) => {
      const response = await client.images.display("preview", imageId);
      return { number, name: `image-${number}.jpg`, jpeg: Buffer.from(await response.arrayBuffer()) };
    }),
  );
}
