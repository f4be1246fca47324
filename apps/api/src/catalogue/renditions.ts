import sharp, { type Sharp } from "sharp";

const JPEG = { quality: 86 } as const;
/** Watermarked files are served most and encoded once: mozjpeg makes them about a third smaller. */
const WATERMARKED_JPEG = { quality: 78, mozjpeg: true } as const;
export const PREVIEW_LONG_EDGE = 512;
export const UHD_LONG_EDGE = 3840;

/** The word "imagehub" repeated diagonally over the whole picture, light with a dark outline: visible on any picture. */
function watermarkSvg(width: number, height: number): Buffer {
  const size = Math.max(14, Math.round(Math.min(width, height) / 9));
  const rows: string[] = [];
  for (let y = -height; y < height * 2; y += size * 2.6) {
    for (let x = -width; x < width * 2; x += size * 6) {
      rows.push(`<text x="${x}" y="${y}">imagehub</text>`);
    }
  }
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<g transform="rotate(-30 ${width / 2} ${height / 2})" font-family="sans-serif" font-weight="bold" font-size="${size}" ` +
      `fill="#ffffff" fill-opacity="0.42" stroke="#000000" stroke-opacity="0.35" stroke-width="${Math.max(1, size / 18)}">` +
      `${rows.join("")}</g></svg>`,
  );
}

async function withWatermark(image: Sharp): Promise<Buffer> {
  const { data, info } = await image.toBuffer({ resolveWithObject: true });
  return sharp(data)
    .composite([{ input: watermarkSvg(info.width, info.height) }])
    .jpeg(WATERMARKED_JPEG)
    .toBuffer();
}

async function longEdge(original: Buffer): Promise<{ width: number; height: number }> {
  const { width = 0, height = 0 } = await sharp(original).metadata();
  return { width, height };
}

export async function previewRendition(original: Buffer): Promise<Buffer> {
  return withWatermark(
    sharp(original).resize(PREVIEW_LONG_EDGE, PREVIEW_LONG_EDGE, { fit: "inside", withoutEnlargement: true }),
  );
}

export async function watermarkedFullRendition(original: Buffer): Promise<Buffer> {
  return withWatermark(sharp(original));
}

export async function upscaleRendition(original: Buffer): Promise<Buffer> {
  const { width, height } = await longEdge(original);
  return sharp(original)
    .resize(width * 2, height * 2, { kernel: "lanczos3" })
    .jpeg(JPEG)
    .toBuffer();
}

export async function uhdRendition(original: Buffer): Promise<Buffer> {
  const { width, height } = await longEdge(original);
  const scale = UHD_LONG_EDGE / Math.max(width, height);
  return sharp(original)
    .resize(Math.round(width * scale), Math.round(height * scale), { kernel: "lanczos3" })
    .jpeg(JPEG)
    .toBuffer();
}

export const RENDITIONS = {
  preview: previewRendition,
  "full-watermarked": watermarkedFullRendition,
  upscale: upscaleRendition,
  uhd: uhdRendition,
} as const;
export type RenditionName = keyof typeof RENDITIONS;
