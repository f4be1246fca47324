import type { PrismaClient } from "@imagehub/db";

/**
 * The search index is written by the database itself, in the transaction that writes the catalogue (the
 * triggers of the search_blocks migration): an image is searchable, or gone, as soon as that commits. What is
 * left to call from here: indexing images a bulk load wrote with the index deferred, and compaction.
 */

/**
 * Pending images indexed per transaction: a term's last block is rewritten once a chunk, so larger chunks
 * write less (200,000 realistic images indexed in 54 s in chunks of 50,000, 62 s in chunks of 20,000), at
 * the cost of the chunk's postings, about 46 a realistic image, sorted within PostgreSQL's work_mem or on disk.
 */
export const FLUSH_CHUNK_IMAGES = 50_000;

/**
 * Indexes the images written with the search index deferred (by a seed, or one that stopped before its end),
 * a chunk a transaction, until none is pending: each chunk is searchable as it commits. Answers how many.
 */
export async function flushSearchIndex(
  prisma: PrismaClient,
  chunkImages = FLUSH_CHUNK_IMAGES,
): Promise<number> {
  let indexed = 0;
  for (;;) {
    const [row] = await prisma.$queryRaw<{ flushed: number }[]>`
      SELECT search_index_flush(${chunkImages}::int) AS flushed`;
    const flushed = row?.flushed ?? 0;
    if (flushed === 0) return indexed;
    indexed += flushed;
  }
}

/**
 * Writes again, full, the blocks of every term that lost postings (deleted or changed images); answers how
 * many terms. A VACUUM afterwards gives the freed pages back for reuse.
 */
export async function compactSearchIndex(prisma: PrismaClient): Promise<number> {
  const [row] = await prisma.$queryRaw<{ terms: number }[]>`SELECT search_index_compact() AS terms`;
  return row?.terms ?? 0;
}
