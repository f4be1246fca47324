import { type Database, Prisma } from "@imagehub/db";
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { DATABASE, PRISMA, type PrismaClient } from "../common/core.module.js";
import { isUuid } from "../common/uuid.js";
import { flushSearchIndex, INDEX_DEFERRED } from "./search/index-writer.js";
import { decodePostings, NO_POSTINGS, type Postings, PostingsCache } from "./search/postings.js";
import {
  distinctWords,
  type SearchTerm,
  type SearchWord,
  splitWords,
  termsOf,
  toSearchWord,
} from "./search/query-planner.js";
import { rankDocuments } from "./search/scorer.js";
import * as statements from "./search/search.statements.js";
import type { ImageSummary, SearchCriteria } from "./search/search.types.js";
import { SortKeys } from "./search/sort-keys.js";
import { sortMatches } from "./search/sorter.js";

export type { ImageSummary, SearchCriteria, SearchSort } from "./search/search.types.js";

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

/**
 * The images of these external ids, each looked up on its own by its key (OFFSET 0 keeps the lookups from
 * being merged into a join). Prepared, its plan is made once, maybe while the catalogue is empty: a plan that
 * compared every image with each id of the batch read the whole catalogue at every batch of an import.
 */
export function selectByExternalIds(externalIds: readonly string[]): Prisma.Sql {
  return Prisma.sql`
    SELECT found.* FROM unnest(${externalIds}::text[]) AS wanted (external_id)
    CROSS JOIN LATERAL (
      SELECT id, external_id AS "externalId", titles, tags, free, price, external_source AS "externalSource",
             renditions
      FROM images WHERE images.external_id = wanted.external_id
      OFFSET 0
    ) found`;
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

/** Images: search, lookups and the record of stored renditions. */
@Injectable()
export class CatalogueRepository implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CatalogueRepository.name);
  /**
   * Display reads the same few images over and over. Records change only when a rendition is stored
   * (recorded here too) or by administration, which a minute's delay suits.
   */
  private readonly recentImages = new LRUCache<string, ImageRecord>({ max: 10_000, ttl: 60_000 });

  /** Terms' postings read by earlier searches, kept while their version stands (see PostingsCache). */
  private readonly postings: PostingsCache;

  /** Documents' dates and popularity, by which sorted keyword searches order their matches (see SortKeys). */
  private readonly sortKeys: SortKeys;
  /** The first read of the sort keys, started as the process starts serving. */
  private sortKeysLoading: Promise<void> | undefined;

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    // Searches go to the driver directly: they are the hottest reads (see Database.query).
    @Inject(DATABASE) private readonly database: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.postings = new PostingsCache(config.catalogue.postingsCacheMegabytes * 1024 * 1024);
    this.sortKeys = new SortKeys(async (after, since) => {
      const [row] = await this.database.query<statements.SortKeysRow>(statements.sortKeys(after, since));
      if (!row) throw new Error("the sort keys' statement answered no row");
      return row;
    });
  }

  /**
   * A process that serves searches reads every document's sort keys as it starts (seconds on a catalogue of a
   * million images), so that its first sorted search need not wait for them.
   */
  onApplicationBootstrap(): void {
    if (this.config.role === "worker") return;
    this.sortKeysLoading = this.sortKeys.current().catch((error: Error) => {
      // The next sorted search reads them again.
      this.logger.warn(`sort keys not loaded at start: ${error.message}`);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sortKeysLoading;
  }

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
   * holding any of them; sorted by relevance, BM25 ranks them (see scorer.ts): the exact top of every match.
   * In the other sorts, every match is ordered by the date or popularity this process keeps of each document
   * (SortKeys). Either way the count is exact.
   */
  async search(criteria: SearchCriteria): Promise<{ total: number; images: ImageSummary[] }> {
    const resolved = criteria.keywords ? await this.resolve(splitWords(criteria.keywords)) : undefined;
    if (!resolved) return this.listedPage(criteria);
    const words = distinctWords(resolved.words);
    if (words.length === 0) return { total: 0, images: [] };
    const terms = termsOf(words);
    const postings = await this.postingsOf(terms);
    const postingsOf = (id: number) => postings.get(id) ?? NO_POSTINGS;
    if (criteria.sort === "relevance") {
      const ranked = rankDocuments(
        words.map((word) => word.terms.map((term) => ({ postings: postingsOf(term.id), idf: term.idf }))),
        { freeOnly: criteria.freeOnly, count: criteria.offset + criteria.limit },
      );
      return { total: ranked.matches, images: await this.page(ranked.documents.slice(criteria.offset)) };
    }
    // The sort keys, brought up to date after the postings were read, hold every document they list.
    await this.sortKeys.current();
    const sorted = sortMatches(
      terms.map((term) => postingsOf(term.id)),
      criteria.sort === "popular" ? this.sortKeys.popularities : this.sortKeys.dates,
      {
        ascending: criteria.sort === "oldest",
        freeOnly: criteria.freeOnly,
        count: criteria.offset + criteria.limit,
      },
    );
    return { total: sorted.matches, images: await this.page(sorted.documents.slice(criteria.offset)) };
  }

  /** The images of a page of documents, in its order. */
  private async page(documents: number[]): Promise<ImageSummary[]> {
    if (documents.length === 0) return [];
    return this.database.query<ImageSummary>(statements.rankedPage(documents), { prepared: true });
  }

  /**
   * The words of the search with their terms, and the catalogue's size. When none of them is a word of the
   * catalogue, each is replaced by the closest one that is. Words that are stop words in both languages have
   * no term.
   */
  private async resolve(typed: string[]): Promise<{ words: SearchWord[] }> {
    const looked = await this.lookUp(typed);
    if (looked.words.some((word) => word.terms.length > 0)) return looked;
    const corrections = await Promise.all(
      looked.words
        .filter((word) => word.typed.length >= 3)
        .map(
          async (word) =>
            (await this.database.query<{ word: string }>(statements.closestWord(word.typed)))[0]?.word,
        ),
    );
    const corrected = corrections.filter((word): word is string => word !== undefined);
    return corrected.length > 0 ? this.lookUp(corrected) : looked;
  }

  private async lookUp(typed: string[]) {
    const rows = await this.database.query<statements.TermRow>(statements.resolveWords(typed), {
      prepared: true,
    });
    return {
      words: typed.map((word, index) =>
        toSearchWord(
          word,
          rows.filter((row) => row.position === index + 1),
        ),
      ),
    };
  }

  /**
   * The terms' postings: kept ones whose version (read with the words) still stands, the others read in one
   * statement.
   */
  private async postingsOf(terms: readonly SearchTerm[]): Promise<Map<number, Postings>> {
    const found = this.postings.current(terms);
    const missing = terms.filter((term) => !found.has(term.id)).map((term) => term.id);
    if (missing.length === 0) return found;
    const rows = await this.database.query<statements.TermPostingsRow>(statements.termPostings(missing), {
      prepared: true,
    });
    for (const row of rows) {
      const postings = decodePostings(row);
      this.postings.keep(row.term_id, row.version, postings);
      found.set(row.term_id, postings);
    }
    return found;
  }

  /** Searches without keywords: every catalogue image, in the sort's order, counted exactly. */
  private async listedPage(criteria: SearchCriteria) {
    const rows = await this.database.query<ImageSummary & { matches: number }>(
      statements.listedPage(criteria),
      { prepared: true },
    );
    const images = rows.map(({ matches: _, ...image }) => image);
    // An empty page says nothing of how many there are: they are counted on their own.
    const total =
      rows[0]?.matches ??
      (
        await this.database.query<{ count: number }>(
          Prisma.sql`SELECT ${statements.catalogueSize(criteria.freeOnly)} AS count`,
        )
      )[0]?.count;
    return { total: total ?? 0, images };
  }

  /** The catalogue images that the given manifest ids name. */
  async findByExternalIds(externalIds: readonly string[]): Promise<ExternalImage[]> {
    return this.database.query<ExternalImage>(selectByExternalIds(externalIds), { prepared: true });
  }

  /**
   * Writes a manifest batch's images in one transaction, with the stored files it makes referenced and
   * those it leaves unreferenced: a crash leaves all of the batch or none of it. Changed images are indexed
   * for search in that transaction; new ones wait in search_index_pending, committed with them, for the
   * import's next flush (`flushSearchIndex`), which indexes many batches' images in one statement.
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
          FROM ${INDEX_DEFERRED}, unnest(
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

  /** Indexes for search the images written with the index deferred; answers how many. */
  flushSearchIndex(): Promise<number> {
    return flushSearchIndex(this.prisma);
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
