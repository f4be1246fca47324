import { Prisma } from "@imagehub/db";
import type { SearchSort } from "./search.types.js";

/**
 * The statements of catalogue search over the inverted index (see the search_blocks migration): the words'
 * terms, their postings, and the images of a page. Ranking happens in the API (scorer.ts).
 */

export interface TermRow {
  position: number;
  term_id: number | null;
  term: string | null;
  /** Moves whenever the term's postings change (see termPostings). */
  version: string | null;
  documents: number;
  catalogue: number;
}

/**
 * Each word of the search with the catalogue terms its English and French stems are, each term's version, and
 * the size of the catalogue (the sum of its slots, see the search_catalogue_size migration): the versions
 * come with the words, so that postings already kept need no statement of their own.
 */
export function resolveWords(words: readonly string[]): Prisma.Sql {
  return Prisma.sql`
    SELECT w.position::int AS position, t.id AS term_id, t.term, t.version::text AS version,
           coalesce(t.documents, 0) AS documents,
           catalogue.documents AS catalogue
    FROM (SELECT sum(documents)::int AS documents FROM search_catalogue_size) catalogue
    CROSS JOIN unnest(${words}::text[]) WITH ORDINALITY AS w(word, position)
    CROSS JOIN LATERAL unnest(tsvector_to_array(
      to_tsvector('imagehub_en', w.word) || to_tsvector('imagehub_fr', w.word))) AS lexeme
    LEFT JOIN search_terms t ON t.term = lexeme`;
}

/** "elefant" → "elephant": the closest word of the catalogue by trigram similarity, if any comes close. */
export function closestWord(word: string): Prisma.Sql {
  return Prisma.sql`
    SELECT word FROM search_words WHERE word % imagehub_fold(${word})
    ORDER BY word <-> imagehub_fold(${word}) LIMIT 1`;
}

/** A term's postings, its blocks joined in order, with the version they are at. */
export interface TermPostingsRow {
  term_id: number;
  version: string;
  /** Base64: 4 bytes per document number (big-endian), then one impact byte per document. */
  documents: string;
  impacts: string;
}

export function termPostings(terms: readonly number[]): Prisma.Sql {
  return Prisma.sql`
    SELECT t.id AS term_id, t.version::text AS version,
           encode(string_agg(b.documents, ''::bytea ORDER BY b.first_document), 'base64') AS documents,
           encode(string_agg(b.impacts, ''::bytea ORDER BY b.first_document), 'base64') AS impacts
    FROM search_terms t JOIN search_blocks b ON b.term_id = t.id
    WHERE t.id = ANY(${terms}::int[])
    GROUP BY t.id`;
}

/** Each sort's order of images (the image id breaks ties); without keywords, relevance is newest. */
const ORDERS = {
  relevance: Prisma.sql`i.created_at DESC, i.id DESC`,
  newest: Prisma.sql`i.created_at DESC, i.id DESC`,
  oldest: Prisma.sql`i.created_at ASC, i.id ASC`,
  popular: Prisma.sql`i.popularity DESC, i.id DESC`,
} satisfies Record<SearchSort, Prisma.Sql>;

const SUMMARY = Prisma.sql`i.id, i.titles, i.free, i.validate`;

/** The images of the given documents, in the order given (a page ranked or sorted in the API). */
export function rankedPage(documents: readonly number[]): Prisma.Sql {
  return Prisma.sql`
    SELECT ${SUMMARY}
    FROM unnest(${documents}::int[]) WITH ORDINALITY AS d(document, rank)
    JOIN search_documents s ON s.document = d.document
    JOIN images i ON i.id = s.image_id
    ORDER BY d.rank`;
}

/** Sort keys read (see sort-keys.ts): base64 of 16 bytes a document, and the oldest transaction still running. */
export interface SortKeysRow {
  keys: string | null;
  horizon: string;
}

/**
 * The sort keys of the documents numbered above `after`, and of the images whose keys changed in transaction
 * `since` or later (none before the first read), with the oldest transaction still running as this statement
 * reads (its snapshot's xmin: any change not seen here was made by it or a later one). The values are written
 * into the text, so that it is planned for them: a generic plan takes `document > $1` for a third of the
 * catalogue, and joined it to every image.
 */
export function sortKeys(after: number, since: string | null): Prisma.Sql {
  if (!Number.isSafeInteger(after)) throw new Error(`a document number, not ${after}`);
  if (since !== null && !/^\d+$/.test(since)) throw new Error(`a transaction id, not ${since}`);
  const keys = Prisma.sql`s.document, (extract(epoch FROM i.created_at) * 1000)::float8 AS created_ms, i.popularity`;
  const changed =
    since === null
      ? Prisma.empty
      : Prisma.sql`
        UNION ALL
        SELECT ${keys} FROM images i JOIN search_documents s ON s.image_id = i.id
        WHERE i.sort_keys_changed >= ${Prisma.raw(`'${since}'`)}::xid8`;
  return Prisma.sql`
    SELECT encode(string_agg(int4send(k.document) || float8send(k.created_ms) || int4send(k.popularity), ''::bytea), 'base64') AS keys,
           pg_snapshot_xmin(pg_current_snapshot())::text AS horizon
    FROM (
      SELECT ${keys} FROM search_documents s JOIN images i ON i.id = s.image_id
      WHERE s.document > ${Prisma.raw(String(after))}
      ${changed}
    ) k`;
}

/**
 * Searches without keywords: a page of every catalogue image (or free one) in the sort's order. The page's
 * ids come from the order's index alone (an index-only scan over catalogue images), so that a deep page
 * skips its offset in the index; then each of its rows is looked up by id (OFFSET 0 keeps the lookup apart:
 * a prepared statement's plan does not know the page's size, and joined, it read every image to hash them).
 */
export function listedPage(page: { sort: SearchSort; freeOnly: boolean; limit: number; offset: number }) {
  return Prisma.sql`
    SELECT ${SUMMARY}, ${catalogueSize(page.freeOnly)} AS matches
    FROM (
      SELECT i.id FROM images i
      WHERE i.source = 'catalogue' ${page.freeOnly ? Prisma.sql`AND i.free` : Prisma.empty}
      ORDER BY ${ORDERS[page.sort]} LIMIT ${page.limit} OFFSET ${page.offset}
    ) page
    CROSS JOIN LATERAL (
      SELECT id, titles, free, validate, created_at, popularity FROM images WHERE id = page.id OFFSET 0
    ) i
    ORDER BY ${ORDERS[page.sort]}`;
}

/** How many catalogue images (or free ones) there are, kept exact by the indexing triggers. */
export function catalogueSize(freeOnly: boolean): Prisma.Sql {
  return Prisma.sql`(SELECT sum(${Prisma.raw(freeOnly ? "free_documents" : "documents")})::int FROM search_catalogue_size)`;
}

/**
 * How far the counter of the catalogue's changes that can alter an answer stands (see the search_changes
 * migration): a sequence never advanced reads its start value, as after its first change, so is_called tells
 * them apart.
 */
export const catalogueChanges = Prisma.sql`(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM search_catalogue_changes)::text`;
