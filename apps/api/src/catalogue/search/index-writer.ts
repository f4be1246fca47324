import type { PrismaClient } from "@imagehub/db";

/**
 * The search index is written by the database itself, in the transaction that writes the catalogue (the
 * triggers of the search_blocks migration): an image is searchable, or gone, as soon as that commits. What is
 * left to call from here: indexing images a bulk load wrote with the index deferred, and compaction.
 */

/**
 * Indexes the images written with the search index deferred (by a seed, or one that stopped before its end);
 * answers how many.
 */
export async function flushSearchIndex(prisma: PrismaClient): Promise<number> {
  const [row] = await prisma.$queryRaw<{ flushed: number }[]>`SELECT search_index_flush() AS flushed`;
  return row?.flushed ?? 0;
}

/**
 * Writes again, full, the blocks of every term that lost postings (deleted or changed images); answers how
 * many terms. A VACUUM afterwards gives the freed pages back for reuse.
 */
export async function compactSearchIndex(prisma: PrismaClient): Promise<number> {
  const [row] = await prisma.$queryRaw<{ terms: number }[]>`SELECT search_index_compact() AS terms`;
  return row?.terms ?? 0;
}
