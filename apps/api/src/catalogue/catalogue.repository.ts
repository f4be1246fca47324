import { type Database, Prisma } from "@imagehub/db";
import type { IMAGE_SORTS } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { DATABASE, PRISMA, type PrismaClient } from "../common/core.module.js";
import { isUuid } from "../common/uuid.js";

export type SearchSort = (typeof IMAGE_SORTS)[number];

export interface SearchCriteria {
  keywords: string | undefined;
  freeOnly: boolean;
  sort: SearchSort;
  limit: number;
  offset: number;
}

export interface ImageSummary {
  id: string;
  titles: Record<string, string>;
  free: boolean;
  validate: boolean;
}

/** A stored rendition: where it is and its strong ETag, recorded once so that 304s need no storage read. */
export interface StoredRendition {
  key: string;
  etag: string;
}

export interface ImageRecord extends ImageSummary {
  /** Catalogue images can be drawn again from their title; generated ones exist only as stored. */
  source: "catalogue" | "generation";
  tags: string[];
  price: number;
  width: number;
  height: number;
  seed: number;
  renditions: Record<string, StoredRendition>;
}

/** Counts are exact up to this many matches; above it the planner's estimate stands in. */
export const EXACT_COUNT_LIMIT = 1000;

/** How many matches are ranked when sorting by relevance; pages beyond them are empty. */
export const RANKED_CANDIDATES = 1000;

const ORDERS = {
  relevance: Prisma.sql`created_at DESC, id DESC`,
  newest: Prisma.sql`created_at DESC, id DESC`,
  oldest: Prisma.sql`created_at ASC, id ASC`,
  popular: Prisma.sql`popularity DESC, id DESC`,
} satisfies Record<SearchSort, Prisma.Sql>;

/** Images: search, lookups and the record of stored renditions. */
@Injectable()
export class CatalogueRepository {
  /**
   * Display reads the same few images over and over. Records change only when a rendition is stored
   * (recorded here too) or by administration, which a minute's delay suits.
   */
  private readonly recentImages = new LRUCache<string, ImageRecord>({ max: 10_000, ttl: 60_000 });

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    // Searches go to the driver directly: they are the hottest reads (see Database.query).
    @Inject(DATABASE) private readonly database: Database,
  ) {}

  async findImage(id: string): Promise<ImageRecord | undefined> {
    if (!isUuid(id)) return undefined;
    const cached = this.recentImages.get(id);
    if (cached) return cached;
    const image = await this.prisma.image.findUnique({
      where: { id },
      select: {
        id: true,
        source: true,
        titles: true,
        free: true,
        validate: true,
        tags: true,
        price: true,
        width: true,
        height: true,
        seed: true,
        renditions: true,
      },
    });
    if (!image) return undefined;
    const record = {
      ...image,
      titles: image.titles as Record<string, string>,
      renditions: image.renditions as unknown as Record<string, StoredRendition>,
    };
    this.recentImages.set(id, record);
    return record;
  }

  /** Drops deleted images from this process's memory at once (other processes within a minute). */
  forget(imageIds: readonly string[]): void {
    for (const id of imageIds) this.recentImages.delete(id);
  }

  async isObtainedBy(imageId: string, accountId: string): Promise<boolean> {
    const purchase = await this.prisma.purchase.findUnique({
      where: { accountId_imageId: { accountId, imageId } },
      select: { id: true },
    });
    return purchase !== null;
  }

  async recordRendition(imageId: string, name: string, rendition: StoredRendition): Promise<void> {
    const cached = this.recentImages.get(imageId);
    if (cached) cached.renditions[name] = rendition;
    await this.prisma.$executeRaw`
      UPDATE images SET renditions = renditions || jsonb_build_object(${name}::text, ${JSON.stringify(rendition)}::jsonb)
      WHERE id = ${imageId}::uuid`;
  }

  /**
   * One page of images and how many match in all. Keywords go through full-text search; when it finds
   * nothing, each word is corrected to the closest word of the catalogue (trigram similarity) and the
   * search runs again, so that a misspelled word still finds images.
   */
  async search(criteria: SearchCriteria): Promise<{ total: number; images: ImageSummary[] }> {
    if (!criteria.keywords) return this.page(criteria, this.listedFilter(criteria), undefined);
    const found = await this.fullText(criteria, criteria.keywords);
    if (found.total > 0) return found;
    const corrected = await this.correctSpelling(criteria.keywords);
    return corrected ? this.fullText(criteria, corrected) : found;
  }

  private fullText(criteria: SearchCriteria, keywords: string) {
    // Several words find images holding any of them; those holding all of them rank first.
    const anyWord = Prisma.sql`(
      replace(plainto_tsquery('imagehub_en', ${keywords})::text, ' & ', ' | ')::tsquery
      || replace(plainto_tsquery('imagehub_fr', ${keywords})::text, ' & ', ' | ')::tsquery)`;
    const allWords = Prisma.sql`(plainto_tsquery('imagehub_en', ${keywords}) || plainto_tsquery('imagehub_fr', ${keywords}))`;
    const filter = this.listedFilter(criteria);
    const relevance = {
      rank: Prisma.sql`ts_rank(search_document, ${anyWord})`,
      candidates: [
        Prisma.sql`search_document @@ ${allWords} AND ${filter}`,
        ...(/\s/.test(keywords.trim()) ? [Prisma.sql`search_document @@ ${anyWord} AND ${filter}`] : []),
      ],
    };
    return this.page(criteria, Prisma.sql`search_document @@ ${anyWord} AND ${filter}`, relevance);
  }

  /** "elefant fores" → "elephant forest", or undefined when no word comes close to a catalogue word. */
  private async correctSpelling(keywords: string): Promise<string | undefined> {
    const [row] = await this.database.query<{ corrected: string | null }>(Prisma.sql`
      SELECT string_agg(corrected, ' ') AS corrected FROM (
        SELECT (SELECT word FROM search_words WHERE word % typed ORDER BY word <-> typed LIMIT 1) AS corrected
        FROM regexp_split_to_table(imagehub_fold(${keywords}), '[^[:alnum:]]+') AS typed
        WHERE length(typed) >= 3
      ) words WHERE corrected IS NOT NULL`);
    return row?.corrected ?? undefined;
  }

  /** Generated images belong to their account: search finds catalogue images only. */
  private listedFilter(criteria: SearchCriteria): Prisma.Sql {
    return criteria.freeOnly ? Prisma.sql`source = 'catalogue' AND free` : Prisma.sql`source = 'catalogue'`;
  }

  /**
   * Sorted by relevance, only a capped set of candidates is ranked (ranking every match of a common word
   * costs a scan of all of them): the first RANKED_CANDIDATES matches of each candidate condition. The
   * capped count rides along with the page, so that a search is one round trip to PostgreSQL.
   */
  private async page(
    criteria: SearchCriteria,
    where: Prisma.Sql,
    relevance: { rank: Prisma.Sql; candidates: Prisma.Sql[] } | undefined,
  ) {
    const page = Prisma.sql`LIMIT ${criteria.limit} OFFSET ${criteria.offset}`;
    const columns = Prisma.sql`id, titles, free, validate, ${cappedCount(where)} AS matches`;
    // The rank is computed while the candidates are read: fetching them again by id costs five times more.
    const query =
      criteria.sort === "relevance" && relevance
        ? Prisma.sql`SELECT ${columns} FROM (${Prisma.join(
            relevance.candidates.map(
              (condition) => Prisma.sql`(
                SELECT id, titles, free, validate, created_at, ${relevance.rank} AS rank
                FROM images WHERE ${condition} LIMIT ${RANKED_CANDIDATES})`,
            ),
            " UNION ",
          )}) candidates ORDER BY rank DESC, created_at DESC, id DESC ${page}`
        : Prisma.sql`SELECT ${columns} FROM images WHERE ${where} ORDER BY ${ORDERS[criteria.sort]} ${page}`;
    const rows = await this.database.query<ImageSummary & { matches: number }>(query);
    const images = rows.map(({ matches: _, ...image }) => image);
    // An empty page past the first says nothing of how many match: they are counted on their own.
    const capped = rows[0]?.matches ?? (criteria.offset === 0 ? 0 : await this.countCapped(where));
    return { total: capped > EXACT_COUNT_LIMIT ? await this.estimate(where) : capped, images };
  }

  private async countCapped(where: Prisma.Sql): Promise<number> {
    const [row] = await this.database.query<{ count: number }>(
      Prisma.sql`SELECT ${cappedCount(where)} AS count`,
    );
    return row?.count ?? 0;
  }

  /** Above EXACT_COUNT_LIMIT, the planner's estimate stands in for a count of every match. */
  private async estimate(where: Prisma.Sql): Promise<number> {
    const [plan] = await this.database.query<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(
      Prisma.sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM images WHERE ${where}`,
    );
    return Math.max(EXACT_COUNT_LIMIT + 1, Math.round(plan?.["QUERY PLAN"][0].Plan["Plan Rows"] ?? 0));
  }
}

/** Matches counted up to one past EXACT_COUNT_LIMIT: a capped scan stays cheap, and exact below it. */
function cappedCount(where: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(SELECT count(*)::int FROM (SELECT 1 FROM images WHERE ${where} LIMIT ${EXACT_COUNT_LIMIT + 1}) capped)`;
}
