import { type Database, Prisma } from "@imagehub/db";
import type { IMAGE_SORTS } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { DATABASE, PRISMA, type PrismaClient } from "../common/core.module.js";
import { isUuid } from "../common/uuid.js";
import {
  documentsOf,
  estimateMatches,
  type SearchWord,
  splitWords,
  sum,
  toSearchWord,
} from "./image-search.ranking.js";
import * as statements from "./image-search.statements.js";

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

/**
 * Postings read per list in the first round of ranking several words. Weights are flat near the top of a
 * common word's list (many images of the same length), so the bound falls only some way down: reading a
 * thousand at once costs less than the several small rounds it saves.
 */
const FIRST_ROUND = 1000;

/** Without keywords there is nothing to rank: relevance lists the newest first. */
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

  /**
   * A search word's terms and how common they are, kept a few seconds: most searches repeat words, and
   * this saves them a statement. The postings are always read live: what can be that old is which of the
   * word's two stems the catalogue has, the counts behind estimates, and the best weight ranking's bound
   * takes (an image added meanwhile with a higher one could miss page 1 for those seconds).
   */
  private readonly recentWords = new LRUCache<string, SearchWord>({ max: 10_000, ttl: 5_000 });

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
   * One page of images and how many match in all. Keywords are looked up in the catalogue's terms (English
   * and French stems, accents folded); when none matches, each word is corrected to the closest word of the
   * catalogue (trigram similarity), so that a misspelled word still finds images. Several words find images
   * holding any of them; sorted by relevance, those holding all of them come first.
   */
  async search(criteria: SearchCriteria): Promise<{ total: number; images: ImageSummary[] }> {
    const words = criteria.keywords ? await this.resolve(splitWords(criteria.keywords)) : [];
    if (words.length === 0) {
      if (criteria.keywords) return { total: 0, images: [] };
      return this.listedPage(criteria);
    }
    const terms = [...new Set(words.flatMap((word) => word.terms))];
    const total = estimateMatches(words, criteria.freeOnly);
    const countAll = total === undefined;
    if (criteria.sort !== "relevance" || words.length === 1) {
      const rows = await this.database.query<ImageSummary & { matches: number | null }>(
        statements.anyTermPage(terms, { ...criteria, countAll }),
        { prepared: true },
      );
      const images = rows.map(({ matches: _, ...image }) => image);
      return {
        total: total ?? rows[0]?.matches ?? (await this.countAnyTerm(terms, criteria.freeOnly)),
        images,
      };
    }
    const ranked = await this.rankAllWordsFirst(words, criteria);
    const pageIds = ranked.slice(criteria.offset, criteria.offset + criteria.limit);
    const byId = new Map(
      (pageIds.length > 0
        ? await this.database.query<ImageSummary>(statements.imagesById(pageIds), { prepared: true })
        : []
      ).map((image) => [image.id, image]),
    );
    const images = pageIds.flatMap((id) => byId.get(id) ?? []);
    return { total: total ?? (await this.countAnyTerm(terms, criteria.freeOnly)), images };
  }

  /**
   * The words of the search with their terms and how common they are. When none of them is a word of the
   * catalogue, each is replaced by the closest one that is. Words that are stop words in both languages
   * drop out.
   */
  private async resolve(typed: string[]): Promise<SearchWord[]> {
    const words = await this.lookUp(typed);
    const known = words.filter((word) => word.terms.length > 0);
    if (known.length > 0) return known;
    const corrections = await Promise.all(
      words
        .filter((word) => word.typed.length >= 3)
        .map(
          async (word) =>
            (await this.database.query<{ word: string }>(statements.closestWord(word.typed)))[0]?.word,
        ),
    );
    const corrected = await this.lookUp(corrections.filter((word): word is string => word !== undefined));
    return corrected.filter((word) => word.terms.length > 0);
  }

  private async lookUp(typed: string[]): Promise<SearchWord[]> {
    const resolved = new Map(
      typed.flatMap((word) => {
        const recent = this.recentWords.get(word);
        return recent ? [[word, recent] as const] : [];
      }),
    );
    const missing = typed.filter((word) => !resolved.has(word));
    if (missing.length > 0) {
      const rows = await this.database.query<statements.TermRow>(statements.resolveWords(missing), {
        prepared: true,
      });
      missing.forEach((word, index) => {
        const looked = toSearchWord(
          word,
          rows.filter((row) => row.position === index + 1),
        );
        resolved.set(word, looked);
        // A word the catalogue lacks is looked up again next time: an image holding it may be added.
        if (looked.terms.length > 0) this.recentWords.set(word, looked);
      });
    }
    return typed.flatMap((word) => resolved.get(word) ?? []);
  }

  /**
   * Relevance for several words, exact over every match: the images holding all the words, best first, then
   * the others. Both are read in rounds down the postings' weight order (the threshold algorithm): after
   * each round, what was read is ranked, and reading stops once no unread image can score above the last one
   * the page needs. The images holding all the words are read down the rarest word's postings only.
   */
  private async rankAllWordsFirst(words: SearchWord[], criteria: SearchCriteria): Promise<string[]> {
    const needed = criteria.offset + criteria.limit;
    const pivot = words.reduce((rarest, word) =>
      documentsOf(word, criteria.freeOnly) < documentsOf(rarest, criteria.freeOnly) ? word : rarest,
    );
    const others = words.filter((word) => word !== pivot);
    const allWords = await this.rankInRounds([pivot], others, criteria.freeOnly, needed, true);
    if (allWords.hits.length >= needed || !allWords.exhausted) return allWords.hits;
    const some = await this.rankInRounds(
      words,
      [],
      criteria.freeOnly,
      needed - allWords.hits.length,
      false,
      allWords.hits,
    );
    return [...allWords.hits, ...some.hits];
  }

  /**
   * Reads the postings of `read` (best weight first), further each round, until the best `needed` images
   * are certain: when the last of them scores above what any unread image could. With `requireAll`, only
   * images holding every word are read; otherwise images in `excluded` (those holding every word) are
   * left out.
   */
  private async rankInRounds(
    read: SearchWord[],
    others: SearchWord[],
    freeOnly: boolean,
    needed: number,
    requireAll: boolean,
    excluded: readonly string[] = [],
  ): Promise<{ hits: string[]; exhausted: boolean }> {
    const all = [...read, ...others];
    const lists = read.flatMap((word, index) => word.terms.map((term) => ({ term, word: index })));
    for (let limit = Math.max(4 * needed, FIRST_ROUND); ; limit *= 4) {
      const [round] = await this.database.query<statements.RoundRow>(
        statements.rankingRound(
          lists.map((list) => list.term),
          all,
          {
            required: requireAll ? others.map((word) => word.terms) : [],
            excluded,
            freeOnly,
            limit,
            needed,
          },
        ),
        { prepared: true },
      );
      const hits = round?.ids ?? [];
      const open = lists.map((_, index) => (round?.walked[index] ?? 0) === limit);
      if (!open.includes(true)) return { hits, exhausted: true };
      // The best an unread image can score: each read word at most its last weight read (0 once its lists
      // are read to the end), each other word at most its best weight anywhere.
      const unreadLimits = all.map((word, index) => {
        if (index >= read.length) return word.idf * word.maxImpact;
        const stillOpen = lists.flatMap((list, at) =>
          list.word === index && open[at] ? [round?.last_impacts[at] ?? 0] : [],
        );
        return word.idf * Math.max(0, ...stillOpen);
      });
      const unreadBest = requireAll
        ? sum(unreadLimits)
        : // An unread image lacks a word (those holding every word are all known): the weakest one, at least.
          sum(unreadLimits) - Math.min(...unreadLimits);
      const lastScore = round?.scores?.[needed - 1];
      if (lastScore !== undefined && lastScore > unreadBest) return { hits, exhausted: false };
    }
  }

  /** Searches without keywords: every catalogue image, in the sort's order, counted exactly. */
  private async listedPage(criteria: SearchCriteria) {
    const where = criteria.freeOnly
      ? Prisma.sql`source = 'catalogue' AND free`
      : Prisma.sql`source = 'catalogue'`;
    const size = statements.catalogueSize(criteria.freeOnly);
    const rows = await this.database.query<ImageSummary & { matches: number }>(
      Prisma.sql`SELECT id, titles, free, validate, ${size} AS matches FROM images
        WHERE ${where} ORDER BY ${ORDERS[criteria.sort]} LIMIT ${criteria.limit} OFFSET ${criteria.offset}`,
    );
    const images = rows.map(({ matches: _, ...image }) => image);
    // An empty page says nothing of how many there are: they are counted on their own.
    const total =
      rows[0]?.matches ??
      (await this.database.query<{ count: number }>(Prisma.sql`SELECT ${size} AS count`))[0]?.count;
    return { total: total ?? 0, images };
  }

  private async countAnyTerm(terms: number[], freeOnly: boolean): Promise<number> {
    const [row] = await this.database.query<{ count: number }>(
      Prisma.sql`SELECT ${statements.countAnyTerm(terms, freeOnly)} AS count`,
    );
    return row?.count ?? 0;
  }
}
