import type { PrismaClient } from "@imagehub/db";
import sharp from "sharp";
import { INDEX_DEFERRED } from "../../apps/api/src/catalogue/search/index-writer.js";

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

/**
 * Writes a catalogue image as a bulk load does, with the search index deferred: committed, waiting in
 * search_index_pending. `title` in English and French. Answers its id.
 */
export async function insertDeferredImage(prisma: PrismaClient, title: string): Promise<string> {
  const [inserted] = await prisma.$queryRaw<{ id: string }[]>`
    INSERT INTO images (id, titles, tags, width, height)
    SELECT gen_random_uuid(), jsonb_build_object('en', ${title}::text, 'fr', ${title}::text), '{}', 768, 512
    FROM ${INDEX_DEFERRED}
    RETURNING id`;
  return inserted?.id as string;
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
