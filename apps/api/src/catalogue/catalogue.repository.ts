import { type Database, Prisma } from "@imagehub/db";
import type { IMAGE_SORTS } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { DATABASE, PRISMA, type PrismaClient } from "../common/core.module.js";
import { isUuid } from "../common/uuid.js";
import {
  documentsOf,
  estimateMatches,
  isSettled,
  type SearchWord,
  splitWords,
  sum,
  type TieKey,
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
 * Postings read per list in the first round of ranking several words (at least four pages' worth). Every
 * word's list is read, kept to the images holding all the words, so each word's bound falls with its own
 * list and ties at the bound are settled by date and id: most searches end in this round.
 */
const FIRST_ROUND = 100;

/**
 * How far the counters of the changes that can alter a search's answer stand (see the search_changes
 * migration): the catalogue's (images added, removed, indexed again or given a new date) and popularity's.
 */
export interface SearchChanges {
  catalogue: string;
  popularity: string;
}

/** Ranked images: how many were ranked, those of the page, whether every match was read. */
interface RankedPage {
  hits: number;
  page: ImageSummary[];
  exhausted: boolean;
  matches?: number;
}

/**
 * From this many images holding some of three words or more (a deep page), those holding two words or more
 * are found whole through the index of images' terms rather than by walking every list in rounds. Measured
 * on three common words: 250 of them cost 38 ms of PostgreSQL's CPU in rounds and 64 ms whole; 650, 290 ms
 * in rounds and 58 ms whole.
 */
const DEEP_SOME_WORDS = 400;

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
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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

  async searchChanges(): Promise<SearchChanges> {
    // A sequence never advanced reads its start value, as after its first change: is_called tells them apart.
    const [row] = await this.database.query<SearchChanges>(
      Prisma.sql`SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM search_catalogue_changes)::text AS catalogue,
                        (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM search_popularity_changes)::text AS popularity`,
      { prepared: true },
    );
    if (!row) throw new Error("the search change counters are missing");
    return row;
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
    const { images, matches } = await this.rankAllWordsFirst(words, criteria, countAll ? terms : undefined);
    return { total: total ?? matches ?? (await this.countAnyTerm(terms, criteria.freeOnly)), images };
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
   * the others. Unless intersected (rankIntersection) or ranked whole (rankSomeWords), both are read in
   * rounds down the postings' weight order (the threshold algorithm): each round reads each list further
   * from where the last one stopped, ranks what it read with the best images found before, and reading stops
   * once no unread image can score above the last one the page needs. Images holding all the words are read
   * down every word's postings kept to those images, so that each word's bound falls as its list is read.
   * Answers the page, and with `countTerms` how many images hold any of them.
   */
  private async rankAllWordsFirst(
    words: SearchWord[],
    criteria: SearchCriteria,
    countTerms: number[] | undefined,
  ): Promise<{ images: ImageSummary[]; matches: number | undefined }> {
    const needed = criteria.offset + criteria.limit;
    const intersection = await this.rankIntersection(words, criteria, needed, countTerms);
    const allWords =
      intersection.ranked ??
      (await this.rankInRounds(words, criteria, {
        needed,
        pageFrom: criteria.offset,
        requireAll: true,
        countTerms: intersection.matches === undefined ? countTerms : undefined,
      }));
    const matches = intersection.matches ?? allWords.matches;
    if (allWords.hits >= needed || !allWords.exhausted) return { images: allWords.page, matches };
    const rest = { needed: needed - allWords.hits, pageFrom: Math.max(0, criteria.offset - allWords.hits) };
    const some =
      words.length === 2 || rest.needed >= DEEP_SOME_WORDS
        ? await this.rankSomeWords(words, criteria, rest)
        : await this.rankInRounds(words, criteria, rest);
    return { images: [...allWords.page, ...some.page], matches };
  }

  /**
   * The images holding some of the words, ranked without rounds (see rankSomeWords): with two words, or a
   * deep page, where the threshold algorithm would read most of each list, the lists' weights being flat.
   */
  private async rankSomeWords(
    words: SearchWord[],
    criteria: SearchCriteria,
    rest: { needed: number; pageFrom: number },
  ): Promise<{ page: ImageSummary[] }> {
    const [row] = await this.database.query<statements.PageRow>(
      statements.rankSomeWords(words, { freeOnly: criteria.freeOnly, ...rest }),
      { prepared: true },
    );
    return { page: row?.page ?? [] };
  }

  /**
   * With three words or more, the images holding every word, found through the index of images' terms and
   * ranked whole when a sample of the catalogue estimates they are at most SEARCH_INTERSECTION_IMAGES:
   * intersecting the words' lists then costs less than walking them in weight order, where most postings
   * read lack a word. (With two, most images holding the rarer word hold both, and walking settles soon.)
   * Free images alone are walked: their lists are a tenth as long, while the index of terms would read the
   * lists of every image. `ranked` is undefined when not intersected; `matches` counts the images holding
   * any of `countTerms`.
   */
  private async rankIntersection(
    words: SearchWord[],
    criteria: SearchCriteria,
    needed: number,
    countTerms: number[] | undefined,
  ): Promise<{ ranked: RankedPage | undefined; matches: number | undefined }> {
    const limit = this.config.catalogue.intersectionImages;
    if (words.length < 3 || limit === 0 || criteria.freeOnly)
      return { ranked: undefined, matches: undefined };
    const [row] = await this.database.query<statements.IntersectionRow>(
      statements.rankIntersection(words, {
        catalogue: words[0]?.catalogue ?? 0,
        limit,
        needed,
        pageFrom: criteria.offset,
        ...(countTerms && { countTerms }),
      }),
      { prepared: true },
    );
    return {
      ranked: row?.intersected ? { hits: row.hits, page: row.page ?? [], exhausted: true } : undefined,
      matches: row?.matches ?? undefined,
    };
  }

  /**
   * Reads the postings of every word (best weight first), further each round, until the best `needed`
   * images are certain: when the last of them scores above what any unread image could. With
   * `requireAll`, only images holding every word are read, and they are all known once one list is read to
   * its end; otherwise those images are left out. Answers the ranked images and those from `pageFrom` on.
   */
  private async rankInRounds(
    words: SearchWord[],
    criteria: SearchCriteria,
    round: { needed: number; pageFrom: number; requireAll?: boolean; countTerms?: number[] | undefined },
  ): Promise<RankedPage> {
    const { needed, requireAll = false } = round;
    const pivot = requireAll ? rarestWord(words, criteria.freeOnly) : undefined;
    const lists = words.flatMap((word, index) =>
      word.terms.map((term) => ({
        term,
        word: index,
        required: requireAll ? words.filter((other) => other !== word).map((other) => other.terms) : [],
        walked: 0,
        /** Where the list stopped; undefined once it is read to its end. */
        position: { impact: Number.POSITIVE_INFINITY } as ListPosition | undefined,
      })),
    );
    let found = statements.NONE_RANKED;
    let matches: number | undefined;
    // Images holding every word, when the rarest word is rare enough: its lists read to their end in one
    // round hold them all, which costs less than walking the common words' lists, whose best postings are
    // of short images that rarely hold the other words. With two words, the other's list is often as short
    // and most images holding one hold both: rounds settle sooner.
    const pivotDocuments =
      pivot === undefined ? undefined : documentsOf(words[pivot] as SearchWord, criteria.freeOnly);
    const readsPivotWhole =
      pivotDocuments !== undefined &&
      words.length >= 3 &&
      pivotDocuments <= this.config.catalogue.wholeListImages;
    for (let depth = readsPivotWhole ? pivotDocuments + 1 : Math.max(4 * needed, FIRST_ROUND); ; depth *= 4) {
      // Otherwise the rarest word's lists cost the fewest postings per image found (the others are common,
      // so most of its images hold them). They are read deep enough to settle the page; the others, a
      // quarter as far, only lower their word's bound (flat near the top of a list).
      const reading = lists.flatMap((list) => {
        const listDepth =
          pivot === undefined || list.word === pivot
            ? depth
            : readsPivotWhole
              ? 0
              : Math.max(needed, depth / 4);
        return list.position && listDepth > list.walked ? [{ list, limit: listDepth - list.walked }] : [];
      });
      const [row] = await this.database.query<statements.RoundRow>(
        statements.rankingRound(
          reading.map(({ list, limit }) => ({ ...list, limit, after: list.position?.key })),
          words,
          {
            found,
            lackingAll: requireAll ? undefined : words.map((word) => word.terms),
            freeOnly: criteria.freeOnly,
            needed,
            pageFrom: round.pageFrom,
            ...(round.countTerms && matches === undefined && { countTerms: round.countTerms }),
          },
        ),
        { prepared: true },
      );
      matches ??= row?.matches ?? undefined;
      if (row) found = { ids: row.ids, scores: row.scores, createdAts: row.created_ats };
      reading.forEach(({ list, limit }, at) => {
        const walked = row?.walked[at] ?? 0;
        list.walked += walked;
        list.position = walked < limit ? undefined : positionAfter(row, at);
      });
      const answer = {
        hits: row?.ranked ?? 0,
        page: row?.page ?? [],
        ...(matches !== undefined && { matches }),
      };
      // Every image holding all the words is in each word's lists: one word's lists read to their end hold
      // them all.
      const isWordRead = (index: number) => lists.every((list) => list.word !== index || !list.position);
      const isComplete = requireAll
        ? words.some((_, index) => isWordRead(index))
        : lists.every((list) => !list.position);
      if (isComplete) return { ...answer, exhausted: true };
      // The best an unread image can score: each word at most its last weight read (0 once its lists are
      // read to the end).
      const unreadLimits = words.map((word, index) => {
        const stillOpen = lists.flatMap((list) => (list.word === index ? [list.position?.impact ?? 0] : []));
        return word.idf * Math.max(0, ...stillOpen);
      });
      const unreadBest = requireAll
        ? sum(unreadLimits)
        : // An unread image lacks a word (those holding every word are left out): the weakest one, at least.
          sum(unreadLimits) - Math.min(...unreadLimits);
      const last =
        row?.needed_score != null && row.needed_created_at && row.needed_id
          ? { score: row.needed_score, key: { createdAt: row.needed_created_at, id: row.needed_id } }
          : undefined;
      // Equal scores are settled by date and id only for images holding every word: one reaching the bound
      // stands at each word's last weight read, after that list's last posting.
      const boundaries = requireAll ? boundariesOf(lists) : undefined;
      if (isSettled(last, unreadBest, boundaries)) return { ...answer, exhausted: false };
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

/** The word whose images are fewest (in the free images alone, with `freeOnly`). */
function rarestWord(words: readonly SearchWord[], freeOnly: boolean): number {
  const documents = words.map((word) => documentsOf(word, freeOnly));
  return documents.indexOf(Math.min(...documents));
}

/** Where a list stands: its last weight read, and the last posting read (none before its first round). */
type ListPosition = { impact: number; key?: statements.PostingKey };

/** The last posting a list read in a round. */
function positionAfter(row: statements.RoundRow | undefined, at: number): ListPosition {
  const key = {
    impact: row?.last_impacts[at] ?? 0,
    createdAt: row?.last_created_ats[at] as Date,
    id: row?.last_image_ids[at] as string,
  };
  return { impact: key.impact, key };
}

/** Per word, the last postings read of its open lists holding its highest last weight. */
function boundariesOf(lists: readonly { word: number; position: ListPosition | undefined }[]): TieKey[][] {
  const byWord = new Map<number, ListPosition[]>();
  for (const list of lists) {
    if (list.position) byWord.set(list.word, [...(byWord.get(list.word) ?? []), list.position]);
  }
  return [...byWord.values()].map((open) => {
    const highest = Math.max(...open.map((position) => position.impact));
    const keys = open.filter((position) => position.impact === highest).map((position) => position.key);
    // A boundary without a key (a list not read yet) cannot settle a tie: the word then gives none.
    return keys.every((key) => key !== undefined) ? keys : [];
  });
}
