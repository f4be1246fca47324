import sharp, { type Metadata } from "sharp";

const ACCEPTED_FORMATS = new Set(["jpeg", "png", "webp"]);
/** About 100 megapixels: larger pictures would hold the import's memory for one image. */
const MAX_PIXELS = 100_000_000;
const JPEG_QUALITY = 90;

export class UnusablePictureError extends Error {}

/**
 * A picture as the catalogue stores originals: a JPEG (display derives its renditions from it). An upright
 * JPEG is kept byte for byte, so that an export imported again stores the same file; other pictures are
 * turned upright, transparency on white, and encoded. Every picture is decoded whole first, so that a
 * truncated or corrupt one is refused here rather than on display.
 */
export async function toStoredOriginal(
  bytes: Buffer,
): Promise<{ jpeg: Buffer; width: number; height: number }> {
  const options = { limitInputPixels: MAX_PIXELS, failOn: "truncated" } as const;
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, options).metadata();
    await sharp(bytes, options).resize(64, 64, { fit: "inside" }).toBuffer();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UnusablePictureError(
      /pixel limit/i.test(reason) ? `larger than ${MAX_PIXELS} pixels` : `not a readable picture (${reason})`,
    );
  }
  if (!ACCEPTED_FORMATS.has(metadata.format)) {
    throw new UnusablePictureError(`a ${metadata.format} picture: JPEG, PNG or WebP only`);
  }
  if (metadata.format === "jpeg" && (metadata.orientation ?? 1) === 1) {
    return { jpeg: bytes, width: metadata.width, height: metadata.height };
  }
  const { data, info } = await sharp(bytes, options)
    .rotate()
    .flatten({ background: "#ffffff" })
    .jpeg({ quality: JPEG_QUALITY })
    .toBuffer({ resolveWithObject: true });
  return { jpeg: data, width: info.width, height: info.height };
}
