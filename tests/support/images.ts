import type { PrismaClient } from "@imagehub/db";
import sharp from "sharp";

let created = 0;

/** A catalogue image with the given titles; pixels are rendered on first display, as for seeded ones. */
export async function createImage(
  prisma: PrismaClient,
  overrides: {
    en?: string;
    fr?: string;
    tags?: string[];
    free?: boolean;
    price?: number;
    createdAt?: Date;
    popularity?: number;
  } = {},
) {
  created += 1;
  return prisma.image.create({
    data: {
      titles: { en: overrides.en ?? `Test image ${created}`, fr: overrides.fr ?? `Image de test ${created}` },
      tags: overrides.tags ?? [],
      free: overrides.free ?? false,
      price: overrides.price ?? 1,
      popularity: overrides.popularity ?? 0,
      width: 768,
      height: 512,
      seed: created,
      ...(overrides.createdAt && { createdAt: overrides.createdAt }),
    },
  });
}

export async function jpegSize(
  bytes: Buffer | ArrayBuffer,
): Promise<{ format: string; width: number; height: number }> {
  const metadata = await sharp(Buffer.from(bytes as ArrayBuffer)).metadata();
  return { format: metadata.format ?? "", width: metadata.width ?? 0, height: metadata.height ?? 0 };
}

/** Mean absolute difference per channel (0–255) between two images, after bringing b to a's size. */
export async function meanDifference(a: Buffer | ArrayBuffer, b: Buffer | ArrayBuffer): Promise<number> {
  const first = sharp(Buffer.from(a as ArrayBuffer));
  const { width = 0, height = 0 } = await first.metadata();
  const [pixelsA, pixelsB] = await Promise.all([
    first.removeAlpha().raw().toBuffer(),
    sharp(Buffer.from(b as ArrayBuffer))
      .resize(width, height, { fit: "fill" })
      .removeAlpha()
      .raw()
      .toBuffer(),
  ]);
  let total = 0;
  for (let index = 0; index < pixelsA.length; index += 1)
    total += Math.abs((pixelsA[index] ?? 0) - (pixelsB[index] ?? 0));
  return total / pixelsA.length;
}
