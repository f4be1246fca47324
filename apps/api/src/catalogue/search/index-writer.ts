import { Prisma, type PrismaClient } from "@imagehub/db";

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
 * Indexes every pending image when one of them has waited longer than `olderThanSeconds`: left by a bulk load
 * that stopped (killed, its machine lost), it would otherwise wait for the next load. Answers how many were
 * indexed.
 */
export async function flushLeftoverSearchIndex(
  prisma: PrismaClient,
  olderThanSeconds: number,
): Promise<number> {
  const [left] = await prisma.$queryRaw<{ isLeft: boolean }[]>`
    SELECT EXISTS (
      SELECT 1 FROM search_index_pending WHERE pending_since < now() - make_interval(secs => ${olderThanSeconds})
    ) AS "isLeft"`;
  return left?.isLeft ? flushSearchIndex(prisma) : 0;
}

/**
 * A FROM item that defers the search index for the rest of the transaction (set_config local to it): its new
 * catalogue images wait in search_index_pending for a flush. Put first in a bulk load's INSERT … SELECT.
 */
export const INDEX_DEFERRED = Prisma.sql`(SELECT set_config('imagehub.search_index', 'deferred', true)) deferred`;

/** Images a bulk load writes before it flushes the index beside its next writes. */
export const FLUSH_EVERY_IMAGES = 20_000;

/**
 * The flushes of a bulk load that writes its images with the index deferred: once `every` images are written
 * a flush starts beside the next writes, on a connection of its own (one flush at a time: one still running
 * takes the images written meanwhile too), and `finish` indexes the rest. Each flush's images are searchable
 * as it commits. On one connection (PGlite) the flushes take turns with the writes.
 */
export class BackgroundIndexFlush {
  private unindexed = 0;
  private running: Promise<void> | undefined;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly flush: () => Promise<number>,
    private readonly every = FLUSH_EVERY_IMAGES,
  ) {}

  /** Counts `count` more images written deferred; throws the error of a flush that failed. */
  written(count: number): void {
    if (this.failure) throw this.failure.error;
    this.unindexed += count;
    if (this.running || this.unindexed < this.every) return;
    this.unindexed = 0;
    this.running = this.flush().then(
      () => {
        this.running = undefined;
      },
      (error: unknown) => {
        this.failure = { error };
      },
    );
  }

  /** Waits for the flush running, then indexes every image still pending; answers how many that was. */
  async finish(): Promise<number> {
    await this.running;
    if (this.failure) throw this.failure.error;
    return this.flush();
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
