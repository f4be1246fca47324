import sharp from "sharp";
import { dimensionsWithin } from "./aspect-ratio.js";

/** A part of a picture, in pixels: one image of a Midjourney grid. */
export interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

const JPEG_QUALITY = 90;

/**
 * A service's picture (PNG, WebP, JPEG), or a region of it, as the catalogue stores images: a JPEG of the
 * aspect ratio asked for, cropped around the centre (services draw only a few sizes), transparency on
 * white. Throws when the bytes are not a picture.
 */
export async function toStoredJpeg(
  bytes: Buffer,
  aspectRatio: string,
  region?: Region,
): Promise<{ jpeg: Buffer; width: number; height: number }> {
  const picture = sharp(bytes);
  const { width: fullWidth = 0, height: fullHeight = 0 } = await picture.metadata();
  const source = region ?? { left: 0, top: 0, width: fullWidth, height: fullHeight };
  const { width, height } = dimensionsWithin(aspectRatio, source.width, source.height);
  const jpeg = await picture
    .extract(source)
    .resize(width, height, { fit: "cover", position: "centre" })
    .flatten({ background: "#ffffff" })
    .jpeg({ quality: JPEG_QUALITY })
    .toBuffer();
  return { jpeg, width, height };
}
