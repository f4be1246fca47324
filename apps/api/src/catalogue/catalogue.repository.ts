import { Prisma } from "@imagehub/db";
import { Inject, Injectable } from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { PRISMA, type PrismaClient } from "../common/core.module.js";

export const SEARCH_SORTS = ["relevance", "newest", "oldest", "popular"] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

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
  tags: string[];
  price: number;
  width: number;
  height: number;
  seed: number;
  renditions: Record<string, StoredRendition>;
}

/** Counts are exact up to this many matches; above it the planner's estimate stands in. */
export const EXACT_COUNT_LIMIT = 1000;

/** Word similarity from which a catalogue word counts as a misspelling of a search word. */
const WORD_SIMILARITY_THRESHOLD = 0.4;

type QueryClient = Pick<PrismaClient, "$queryRaw">;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Image ids are UUIDs; anything else names no image (and must not reach PostgreSQL as a malformed uuid). */
export function isImageId(id: string): boolean {
  return UUID.test(id);
}

/** Images: search, lookups and the record of stored renditions. */
@Injectable()
export class CatalogueRepository {
  /**
   * Display reads the same few images over and over. Records change only when a rendition is stored
   * (recorded here too) or by administration, which a minute's delay suits.
   */
  private readonly recentImages = new LRUCache<string, ImageRecord>({ max: 10_000, ttl: 60_000 });

  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async findImage(id: string): Promise<ImageRecord | undefined> {
    if (!isImageId(id)) return undefined;
    const cached = this.recentImages.get(id);
    if (cached) return cached;
    const image = await this.prisma.image.findUnique({
      where: { id },
      select: {
        id: true,
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
   * One page of images and how many match in all. Keywords go through full-text search first; when it
   * finds nothing, through trigram similarity, so that a misspelled word still finds images.
   */
  async search(criteria: SearchCriteria): Promise<{ total: number; images: ImageSummary[] }> {
    if (!criteria.keywords) return this.page(this.prisma, criteria, this.freeFilter(criteria), Prisma.sql`0`);
    const fullText = Prisma.sql`(
      replace(plainto_tsquery('imagehub_en', ${criteria.keywords})::text, ' & ', ' | ')::tsquery
      || replace(plainto_tsquery('imagehub_fr', ${criteria.keywords})::text, ' & ', ' | ')::tsquery)`;
    const matches = await this.page(
      this.prisma,
      criteria,
      Prisma.sql`search_document @@ ${fullText} AND ${this.freeFilter(criteria)}`,
      Prisma.sql`ts_rank(search_document, ${fullText})`,
    );
    if (matches.total > 0) return matches;
    const folded = Prisma.sql`imagehub_fold(${criteria.keywords})`;
    return this.prisma.$transaction(async (tx) => {
      // pg_trgm's default (0.6) misses common misspellings ("elefant" scores 0.42 against "elephant");
      // these candidates only come when full-text search found nothing, ranked by similarity.
      await tx.$queryRaw`SELECT set_config('pg_trgm.word_similarity_threshold', ${String(WORD_SIMILARITY_THRESHOLD)}, true)`;
      return this.page(
        tx,
        criteria,
        Prisma.sql`${folded} <% search_text AND ${this.freeFilter(criteria)}`,
        Prisma.sql`word_similarity(${folded}, search_text)`,
      );
    });
  }

  private freeFilter(criteria: SearchCriteria): Prisma.Sql {
    return criteria.freeOnly ? Prisma.sql`free` : Prisma.sql`TRUE`;
  }

  private async page(client: QueryClient, criteria: SearchCriteria, where: Prisma.Sql, rank: Prisma.Sql) {
    const order = {
      relevance: Prisma.sql`${rank} DESC, created_at DESC, id DESC`,
      newest: Prisma.sql`created_at DESC, id DESC`,
      oldest: Prisma.sql`created_at ASC, id ASC`,
      popular: Prisma.sql`popularity DESC, id DESC`,
    }[criteria.sort];
    const [images, total] = await Promise.all([
      client.$queryRaw<ImageSummary[]>`
        SELECT id, titles, free, validate FROM images WHERE ${where}
        ORDER BY ${order} LIMIT ${criteria.limit} OFFSET ${criteria.offset}`,
      this.count(client, where),
    ]);
    return { total, images };
  }

  /** Exact up to EXACT_COUNT_LIMIT (a capped scan stays cheap); above it, the planner's estimate. */
  private async count(client: QueryClient, where: Prisma.Sql): Promise<number> {
    const [capped] = await client.$queryRaw<{ count: number }[]>`
      SELECT count(*)::int AS count FROM (SELECT 1 FROM images WHERE ${where} LIMIT ${EXACT_COUNT_LIMIT + 1}) capped`;
    const count = capped?.count ?? 0;
    if (count <= EXACT_COUNT_LIMIT) return count;
    const [plan] = await client.$queryRaw<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }[]>`
      EXPLAIN (FORMAT JSON) SELECT 1 FROM images WHERE ${where}`;
    return Math.max(EXACT_COUNT_LIMIT + 1, Math.round(plan?.["QUERY PLAN"][0].Plan["Plan Rows"] ?? 0));
  }
}
