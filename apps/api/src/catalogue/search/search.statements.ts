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
  free_documents: number;
  catalogue: number;
  free_catalogue: number;
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
           coalesce(t.free_documents, 0) AS free_documents,
           catalogue.documents AS catalogue, catalogue.free_documents AS free_catalogue
    FROM (SELECT sum(documents)::int AS documents, sum(free_documents)::int AS free_documents
          FROM search_catalogue_size) catalogue
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

/** The images of the given documents, in the order given (a ranked page). */
export function rankedPage(documents: readonly number[]): Prisma.Sql {
  return Prisma.sql`
    SELECT ${SUMMARY}
    FROM unnest(${documents}::int[]) WITH ORDINALITY AS d(document, rank)
    JOIN search_documents s ON s.document = d.document
    JOIN images i ON i.id = s.image_id
    ORDER BY d.rank`;
}

/** A page of the given documents' images in a sort's order: for matches few enough to read each. */
export function sortedAmong(
  documents: readonly number[],
  page: { sort: SearchSort; limit: number; offset: number },
): Prisma.Sql {
  return Prisma.sql`
    SELECT ${SUMMARY}
    FROM search_documents s JOIN images i ON i.id = s.image_id
    WHERE s.document = ANY(${documents}::int[])
    ORDER BY ${ORDERS[page.sort]} LIMIT ${page.limit} OFFSET ${page.offset}`;
}

/**
 * A page of the images holding any of the terms in a sort's order, walking the catalogue in that order and
 * keeping the images whose text holds one: for matches so many that the walk soon fills the page.
 */
export function sortedWalk(
  terms: readonly string[],
  page: { sort: SearchSort; freeOnly: boolean; limit: number; offset: number },
): Prisma.Sql {
  const query = terms.map((term) => `'${term.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`).join(" | ");
  return Prisma.sql`
    SELECT ${SUMMARY} FROM images i
    WHERE i.source = 'catalogue' ${page.freeOnly ? Prisma.sql`AND i.free` : Prisma.empty}
      AND i.search_document @@ ${query}::tsquery
    ORDER BY ${ORDERS[page.sort]} LIMIT ${page.limit} OFFSET ${page.offset}`;
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
