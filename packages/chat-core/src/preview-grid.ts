import sharp from "sharp";
import type { PreviewFile } from "./preview-images.js";

/** The one image a generation's message shows: its grid, growing as the images arrive. */
export interface GridImage {
  name: string;
  jpeg: Buffer;
  width: number;
  height: number;
}

/**
 * The watermarked previews in one 2×2 grid (as Midjourney shows a generation): image 1 top left, 2 top
 * right, 3 bottom left, 4 bottom right, each at the size of the first (a generation's images share one
 * format); the places of images not drawn yet stay dark. One upload and one image in the message, where 4
 * would each take a row.
 */
export async function composeGrid(previews: PreviewFile[]): Promise<GridImage> {
  const ordered = [...previews].sort((a, b) => a.number - b.number);
  const first = ordered[0];
  const isInGrid = (preview: PreviewFile) =>
    Number.isInteger(preview.number) && preview.number >= 1 && preview.number <= 4;
  if (
    !first ||
    !ordered.every(isInGrid) ||
    new Set(ordered.map((preview) => preview.number)).size !== ordered.length
  ) {
    throw new Error(
      `a grid takes 1 to 4 previews numbered 1 to 4, not ${ordered.map((preview) => preview.number).join(", ")}`,
    );
  }
  const { width = 0, height = 0 } = await sharp(first.jpeg).metadata();
  const tiles = await Promise.all(
    ordered.map(async (preview) => ({
      number: preview.number,
      input: await sharp(preview.jpeg).resize(width, height, { fit: "cover" }).toBuffer(),
    })),
  );
  const jpeg = await sharp({
    create: { width: width * 2, height: height * 2, channels: 3, background: { r: 0, g: 0, b: 0 } },
  })
    .composite(
      tiles.map(({ number, input }) => ({
        input,
        left: ((number - 1) % 2) * width,
        top: Math.floor((number - 1) / 2) * height,
      })),
    )
    .jpeg({ quality: 85 })
    .toBuffer();
  return { name: "images.jpg", jpeg, width: width * 2, height: height * 2 };
}
