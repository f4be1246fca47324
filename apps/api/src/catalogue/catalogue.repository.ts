import { type Database, Prisma } from "@imagehub/db";
import type { IMAGE_SORTS } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { DATABASE, PRISMA, type PrismaClient } from "../common/core.module.js";
import { InvalidRequest } from "../common/domain-errors.js";
import { isUuid } from "../common/uuid.js";
import { MAX_RANKED_TERMS, readPage, SearchPairs } from "./image-search.classes.js";
import {
  estimateMatches,
  isCountedExactly,
  type SearchWord,
  splitWords,
  termsOf,
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

/** A catalogue image loaded from a manifest, as an import compares it with the manifest's line. */
export interface ExternalImage {
  id: string;
  externalId: string;
  titles: Record<string, string>;
  tags: string[];
  free: boolean;
  price: number;
  /** What its original was made from ("sha256:…" of the source file, or its URL); null: drawn from the title. */
  externalSource: string | null;
  renditions: Record<string, StoredRendition>;
}

/** An image's picture: its stored original (none: the built-in engine draws it from the title on display). */
export interface CataloguePicture {
  width: number;
  height: number;
  seed: number;
  externalSource: string | null;
  renditions: Record<string, StoredRendition>;
}

export type CatalogueText = Pick<ExternalImage, "id" | "externalId" | "titles" | "tags" | "free" | "price">;

/**
 * What one transaction writes for a batch of a manifest: images added, images whose text changed, images whose
 * picture changed, and the stored files this makes referenced (written beforehand, see markUnreferenced) or
 * no longer referenced (the files of pictures replaced).
 */
export interface CatalogueImageChanges {
  added: (CatalogueText & CataloguePicture)[];
  textChanged: CatalogueText[];
  pictureChanged: (CataloguePicture & { id: string })[];
  referencedKeys: string[];
  unreferencedKeys: string[];
}

/**
 * How far the counters of the changes that can alter a search's answer stand (see the search_changes
 * migration): the catalogue's (images added, removed, indexed again or given a new date) and popularity's.
 */
export interface SearchChanges {
  catalogue: string;
  popularity: string;
}

/**
 * A search's classes (from its pairs' counts), where the counter of the catalogue's changes stood when the
 * counts were read, and whether they were kept from an earlier search rather than read for this one.
 */
interface CountedPairs {
  pairs: SearchPairs;
  changes: string;
  isKept: boolean;
}

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

  /**
   * The classes of a search's words, from their pairs' counts (see rankByClasses), kept a few seconds with
   * where the counter of the catalogue's changes stood when the counts were read: a page read from them
   * stands only when the counter has not moved since, and is read again from fresh counts otherwise. (A
   * change counted before its transaction commits, read with counts from before it, goes unseen for those
   * seconds at most.) Kept by the words' terms and weights, in their order, and the free filter; a thousand
   * at most, each a few hundred counts and the classes worked out from them (tens of kilobytes).
   */
  private readonly recentPairs = new LRUCache<string, Omit<CountedPairs, "isKept">>({
    max: 1_000,
    ttl: 5_000,
  });

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
      Prisma.sql`SELECT ${statements.catalogueChanges} AS catalogue,
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
    const terms = termsOf(words);
    const isRanked = criteria.sort === "relevance" && words.length > 1;
    if (isRanked && terms.length > MAX_RANKED_TERMS) {
      throw new InvalidRequest(
        `search: too many different words to rank by relevance (at most ${MAX_RANKED_TERMS} stems); sort by newest, oldest or popular to search with them all`,
      );
    }
    // Several words: their pairs' counts rank them. Several terms (words, or one word's English and French
    // stems): the pairs' counts tell how many images hold any of them, counting an image holding two once.
    const needsPairs = isRanked || (terms.length > 1 && !isCountedExactly(words, criteria.freeOnly));
    const counted =
      needsPairs && terms.length <= MAX_RANKED_TERMS
        ? await this.pairsOf(words, criteria.freeOnly)
        : undefined;
    const total = estimateMatches(words, criteria.freeOnly, counted?.pairs);
    const countAll = total === undefined;
    if (!isRanked || !counted) {
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
    const { images, matches } = await this.rankByClasses(
      words,
      counted,
      criteria,
      countAll ? terms : undefined,
    );
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
   * the others. The classes their images fall in (see image-search.classes) come from the counts of each pair
   * of terms at each pair of weights, read in one statement or kept from a recent search of the same words;
   * then the classes the page falls in are read, newest first within a score, usually in one statement.
   * Answers the page, and with `countTerms` how many images hold any of them.
   */
  private async rankByClasses(
    words: SearchWord[],
    ranked: CountedPairs,
    criteria: SearchCriteria,
    countTerms: number[] | undefined,
  ): Promise<{ images: ImageSummary[]; matches: number | undefined }> {
    const page = { from: criteria.offset, to: criteria.offset + criteria.limit };
    let counted = ranked;
    for (;;) {
      let matches: number | undefined;
      let hasChanged = false;
      const { pairs, changes } = counted;
      const images = await readPage(pairs, page, async (groups, firstRank) => {
        const [row] = await this.database.query<statements.ClassPageRow>(
          statements.classPage(
            groups.map((group) => group.classes),
            pairs.terms,
            {
              freeOnly: criteria.freeOnly,
              firstRank,
              ...page,
              ...(countTerms && matches === undefined && { countTerms }),
            },
          ),
          { prepared: true },
        );
        matches ??= row?.matches ?? undefined;
        hasChanged ||= row?.changes !== changes;
        return { sizes: row?.sizes ?? [], page: row?.page ?? [] };
      });
      // Counts kept from an earlier search must describe the catalogue the page was read from.
      if (!counted.isKept || !hasChanged) return { images, matches };
      counted = await this.pairsOf(words, criteria.freeOnly, { isFresh: true });
    }
  }

  /** The classes of the words, from their pairs' counts: kept from a recent search of them, or read (and kept). */
  private async pairsOf(
    words: readonly SearchWord[],
    freeOnly: boolean,
    { isFresh = false } = {},
  ): Promise<CountedPairs> {
    const key = `${freeOnly}:${words.map((word) => `${word.terms.join(",")}@${word.idf}`).join(" ")}`;
    const kept = isFresh ? undefined : this.recentPairs.get(key);
    if (kept) return { ...kept, isKept: true };
    const terms = termsOf(words);
    const [row] = await this.database.query<statements.TermPairsRow>(statements.termPairs(terms, freeOnly), {
      prepared: true,
    });
    if (!row) throw new Error("the counts of the search's pairs of terms are missing");
    const counted = {
      pairs: new SearchPairs(words, row.pairs, this.config.catalogue.intersectedPostings),
      changes: row.changes,
    };
    this.recentPairs.set(key, counted);
    return { ...counted, isKept: false };
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
      { prepared: true },
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

  /** The catalogue images that the given manifest ids name. */
  async findByExternalIds(externalIds: readonly string[]): Promise<ExternalImage[]> {
    const rows = await this.database.query<ExternalImage>(
      Prisma.sql`SELECT id, external_id AS "externalId", titles, tags, free, price,
                        external_source AS "externalSource", renditions
                 FROM images WHERE external_id = ANY(${externalIds}::text[])`,
      { prepared: true },
    );
    return rows;
  }

  /**
   * Writes a manifest batch's images in one transaction, with the stored files it makes referenced and
   * those it leaves unreferenced: a crash leaves all of the batch or none of it. Search indexing follows
   * the images' rows.
   */
  async saveCatalogueImages(changes: CatalogueImageChanges): Promise<void> {
    const { added, textChanged, pictureChanged, referencedKeys, unreferencedKeys } = changes;
    const json = (values: unknown[]) => values.map((value) => JSON.stringify(value));
    // Only the statements with rows: an empty INSERT still runs the catalogue's statement triggers.
    const statements = [
      added.length > 0 &&
        this.prisma.$executeRaw`
          INSERT INTO images (id, external_id, titles, tags, free, price, width, height, seed, external_source, renditions)
          SELECT id, external_id, titles, ARRAY(SELECT jsonb_array_elements_text(tags)), free, price, width, height,
                 seed, external_source, renditions
          FROM unnest(
            ${added.map((image) => image.id)}::uuid[], ${added.map((image) => image.externalId)}::text[],
            ${json(added.map((image) => image.titles))}::jsonb[], ${json(added.map((image) => image.tags))}::jsonb[],
            ${added.map((image) => image.free)}::boolean[], ${added.map((image) => image.price)}::int[],
            ${added.map((image) => image.width)}::int[], ${added.map((image) => image.height)}::int[],
            ${added.map((image) => image.seed)}::int[], ${added.map((image) => image.externalSource)}::text[],
            ${json(added.map((image) => image.renditions))}::jsonb[]
          ) AS row(id, external_id, titles, tags, free, price, width, height, seed, external_source, renditions)`,
      // Text and picture apart: a new picture alone must not touch the columns search indexes.
      textChanged.length > 0 &&
        this.prisma.$executeRaw`
          UPDATE images SET titles = row.titles, tags = ARRAY(SELECT jsonb_array_elements_text(row.tags)),
                            free = row.free, price = row.price
          FROM unnest(
            ${textChanged.map((image) => image.id)}::uuid[], ${json(textChanged.map((image) => image.titles))}::jsonb[],
            ${json(textChanged.map((image) => image.tags))}::jsonb[], ${textChanged.map((image) => image.free)}::boolean[],
            ${textChanged.map((image) => image.price)}::int[]
          ) AS row(id, titles, tags, free, price)
          WHERE images.id = row.id`,
      pictureChanged.length > 0 &&
        this.prisma.$executeRaw`
          UPDATE images SET width = row.width, height = row.height, seed = row.seed,
                            external_source = row.external_source, renditions = row.renditions
          FROM unnest(
            ${pictureChanged.map((image) => image.id)}::uuid[], ${pictureChanged.map((image) => image.width)}::int[],
            ${pictureChanged.map((image) => image.height)}::int[], ${pictureChanged.map((image) => image.seed)}::int[],
            ${pictureChanged.map((image) => image.externalSource)}::text[],
            ${json(pictureChanged.map((image) => image.renditions))}::jsonb[]
          ) AS row(id, width, height, seed, external_source, renditions)
          WHERE images.id = row.id`,
      referencedKeys.length > 0 &&
        this.prisma
          .$executeRaw`DELETE FROM unreferenced_image_files WHERE key = ANY(${referencedKeys}::text[])`,
      unreferencedKeys.length > 0 && this.insertUnreferenced(unreferencedKeys),
    ].filter((statement) => statement !== false);
    if (statements.length === 0) return;
    await this.prisma.$transaction(statements);
    this.forget([...textChanged, ...pictureChanged].map((image) => image.id));
  }

  /** Records stored files that no image refers to (yet, or any more), before they are written or dropped. */
  async markUnreferenced(keys: readonly string[]): Promise<void> {
    await this.insertUnreferenced(keys);
  }

  private insertUnreferenced(keys: readonly string[]) {
    return this.prisma.$executeRaw`
      INSERT INTO unreferenced_image_files (key) SELECT unnest(${keys}::text[]) ON CONFLICT DO NOTHING`;
  }

  async unreferencedFiles(limit: number): Promise<string[]> {
    const rows = await this.prisma.unreferencedImageFile.findMany({
      select: { key: true },
      orderBy: { key: "asc" },
      take: limit,
    });
    return rows.map((row) => row.key);
  }

  /** Once the files are deleted from storage. */
  async forgetUnreferenced(keys: readonly string[]): Promise<void> {
    await this.prisma.unreferencedImageFile.deleteMany({ where: { key: { in: [...keys] } } });
  }

  /** Catalogue images in id order (manifest order for imported ones), a page after `afterId`. */
  async catalogueImagesAfter(
    afterId: string | undefined,
    limit: number,
  ): Promise<(Omit<ExternalImage, "externalId"> & { externalId: string | null })[]> {
    return this.database.query(
      Prisma.sql`SELECT id, external_id AS "externalId", titles, tags, free, price,
                        external_source AS "externalSource", renditions
                 FROM images WHERE source = 'catalogue' AND id > ${afterId ?? "00000000-0000-0000-0000-000000000000"}::uuid
                 ORDER BY id LIMIT ${limit}`,
      { prepared: true },
    );
  }
}
