import sharp from "sharp";
import type { PreviewFile } from "./preview-images.js";

/** The one image a finished generation's message shows. */
export interface GridImage {
  name: string;
  jpeg: Buffer;
  width: number;
  height: number;
}

/**
 * The 4 watermarked previews in one 2×2 grid (as Midjourney shows a generation): image 1 top left, 2 top
 * right, 3 bottom left, 4 bottom right, each at the size of the first (a generation's images share one
 * format). One upload and one image in the message, where 4 would each take a row.
 */
export async function composeGrid(previews: PreviewFile[]): Promise<GridImage> {
  const ordered = [...previews].sort((a, b) => a.number - b.number);
  const first = ordered[0];
  if (!first || ordered.length !== 4) throw new Error(`a grid takes 4 previews, not ${ordered.length}`);
  const { width = 0, height = 0 } = await sharp(first.jpeg).metadata();
  const tiles = await Promise.all(
    ordered.map((preview) => sharp(preview.jpeg).resize(width, height, { fit: "cover" }).toBuffer()),
  );
  const jpeg = await sharp({
    create: { width: width * 2, height: height * 2, channels: 3, background: { r: 0, g: 0, b: 0 } },
  })
    .composite(
      tiles.map((input, index) => ({
        input,
        left: (index % 2) * width,
        top: Math.floor(index / 2) * height,
      })),
    )
    .jpeg({ quality: 85 })
    .toBuffer();
  return { name: "images.jpg", jpeg, width: width * 2, height: height * 2 };
}
