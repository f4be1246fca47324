import type { PrismaClient } from "@imagehub/db";
import { FORMATS } from "@imagehub/domain";
import { createRandom } from "../../common/seeded-random.js";
import { dimensionsFor } from "../../engines/aspect-ratio.js";
import {
  BackgroundIndexFlush,
  FLUSH_EVERY_IMAGES,
  flushSearchIndex,
  INDEX_DEFERRED,
} from "../search/index-writer.js";
import { generateRealisticEntry } from "./realistic-vocabulary.js";
import { type CatalogueEntry, generateEntry } from "./title-generator.js";

/** Catalogue originals are rendered at this size on their long edge (lazily, on first display). */
export const CATALOGUE_LONG_EDGE = 1536;
const NEWEST = Date.UTC(2026, 10, 1);
const SPAN_MS = 2 * 365 * 24 * 3600_000;

export interface SeedOptions {
  count: number;
  seed: number;
  /**
   * `realistic`: titles of 8–14 words in English and French and 25–45 keywords over real vocabularies of
   * 60,000 words each (benchmarks, tests at scale); `demo` (default): the small hand-written vocabulary of
   * the embedded demo.
   */
  vocabulary?: "demo" | "realistic";
  /** Rows per INSERT: large enough that round trips do not dominate, small enough for PGlite's memory. */
  batchSize?: number;
  onBatch?: (written: number) => void;
  /** Called once every batch is written, before the images not yet indexed are indexed for search. */
  onIndexing?: () => void;
  /**
   * Images written before the search index is flushed beside the next batches (default 20,000): the flush
   * runs on a connection of its own while the seed goes on writing, one flush at a time.
   */
  indexEvery?: number;
}

/**
 * Writes catalogue entries in batches of one multi-row INSERT each (unnest of arrays). Everything, ids
 * included, comes from the seed, so seeding again with the same seed adds nothing. The batches leave the
 * search index aside (each would maintain the postings' indexes row by row): the written images are indexed
 * in large flushes beside the writes (`indexEvery`), and the last ones at the end; each flush's images become
 * searchable as it commits. On one connection (PGlite) the flushes take turns with the writes.
 */
export async function seedCatalogue(prisma: PrismaClient, options: SeedOptions): Promise<number> {
  const random = createRandom(options.seed);
  const batchSize = options.batchSize ?? 5000;
  const entryOf = options.vocabulary === "realistic" ? generateRealisticEntry : generateEntry;
  const indexing = new BackgroundIndexFlush(
    () => flushSearchIndex(prisma),
    options.indexEvery ?? FLUSH_EVERY_IMAGES,
  );
  let written = 0;
  for (let start = 0; start < options.count; start += batchSize) {
    const rows = Array.from({ length: Math.min(batchSize, options.count - start) }, () =>
      catalogueRow(random, entryOf),
    );
    // One statement, its own transaction: the index is deferred for it alone (set_config local to it), and
    // no client-side transaction timeout can expire a batch that a loaded machine makes slow.
    written += await prisma.$executeRaw`
      INSERT INTO images (id, titles, tags, free, price, popularity, width, height, seed, created_at)
      SELECT id, titles, string_to_array(tags, '|'), free, price, popularity, width, height, seed, created_at
      FROM ${INDEX_DEFERRED},
      unnest(
        ${rows.map((row) => row.id)}::uuid[], ${rows.map((row) => row.titles)}::jsonb[],
        ${rows.map((row) => row.tags)}::text[], ${rows.map((row) => row.free)}::boolean[],
        ${rows.map((row) => row.price)}::int[], ${rows.map((row) => row.popularity)}::int[],
        ${rows.map((row) => row.width)}::int[], ${rows.map((row) => row.height)}::int[],
        ${rows.map((row) => row.seed)}::int[], ${rows.map((row) => row.createdAt)}::timestamptz[]
      ) AS row(id, titles, tags, free, price, popularity, width, height, seed, created_at)
      ON CONFLICT (id) DO NOTHING`;
    indexing.written(rows.length);
    options.onBatch?.(written);
  }
  options.onIndexing?.();
  await indexing.finish();
  return written;
}

/** The embedded first run: a few hundred images when the catalogue is empty. */
export async function seedCatalogueIfEmpty(prisma: PrismaClient, count: number): Promise<number> {
  if (count === 0) return 0;
  const existing = await prisma.image.findFirst({ where: { source: "catalogue" }, select: { id: true } });
  return existing ? 0 : seedCatalogue(prisma, { count, seed: 1 });
}

function catalogueRow(random: () => number, entryOf: (random: () => number) => CatalogueEntry) {
  const entry = entryOf(random);
  const { width, height } = dimensionsFor(
    FORMATS[Math.floor(random() * FORMATS.length)] as string,
    CATALOGUE_LONG_EDGE,
  );
  const free = random() < 0.1;
  const priceDraw = random();
  return {
    id: uuidFrom(random),
    titles: JSON.stringify(entry.titles),
    tags: entry.tags.join("|"),
    free,
    price: priceDraw < 0.8 ? 1 : priceDraw < 0.95 ? 2 : 3,
    // A few images are bought a lot, most rarely: roughly what purchase counts look like.
    popularity: Math.floor(random() ** 4 * 1000),
    width,
    height,
    seed: Math.floor(random() * 2 ** 31),
    createdAt: new Date(NEWEST - Math.floor(random() * SPAN_MS)).toISOString(),
  };
}

/** A version-4-shaped UUID drawn from the seeded generator. */
function uuidFrom(random: () => number): string {
  const bytes = Array.from({ length: 16 }, () => Math.floor(random() * 256));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
