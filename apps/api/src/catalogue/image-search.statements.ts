import { Prisma } from "@imagehub/db";
import type { ImageSummary, SearchSort } from "./catalogue.repository.js";
import type { ImageClass, TermPairRow } from "./image-search.classes.js";

/**
 * The statements of catalogue search over the postings (see the search_postings migration). Each reads a
 * term's postings in the order of one covering index, so that a page costs about as many index entries as
 * it shows, whatever the number of matches.
 */

export interface TermRow {
  position: number;
  term_id: number | null;
  documents: number;
  free_documents: number;
  catalogue: number;
  free_catalogue: number;
}

/**
 * Each word of the search with the catalogue terms its English and French stems are, and the size of the
 * catalogue (the sum of its slots, see the search_catalogue_size migration).
 */
export function resolveWords(words: readonly string[]): Prisma.Sql {
  return Prisma.sql`
    SELECT w.position::int AS position, t.id AS term_id, coalesce(t.documents, 0) AS documents,
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

/** Each sort's key columns (the image id breaks ties) and their direction. */
const KEYS = {
  relevance: { columns: ["impact", "created_at"], direction: "DESC" },
  newest: { columns: ["created_at"], direction: "DESC" },
  oldest: { columns: ["created_at"], direction: "ASC" },
  popular: { columns: ["popularity"], direction: "DESC" },
} satisfies Record<SearchSort, { columns: string[]; direction: "ASC" | "DESC" }>;

/** Without a table, the names are the output columns (after GROUP BY, the best of each image). */
function orderBy(sort: SearchSort, table?: string): Prisma.Sql {
  const { columns, direction } = KEYS[sort];
  const prefix = table ? `${table}.` : "";
  return Prisma.raw([...columns, "image_id"].map((column) => `${prefix}${column} ${direction}`).join(", "));
}

/** `AND free` as a literal, so that the planner can pick the free images' partial indexes. */
function freeCondition(freeOnly: boolean): Prisma.Sql {
  return freeOnly ? Prisma.sql`AND p.free` : Prisma.empty;
}

/**
 * One page of the images holding any of the terms, in the sort's order (relevance: the best weight of the
 * terms, for one word). The first `offset + limit` postings of each term hold the page: each is read down
 * its index that far, and the union is ordered again. `matches` counts every match when `countAll`.
 */
export function anyTermPage(
  terms: readonly number[],
  options: { sort: SearchSort; freeOnly: boolean; limit: number; offset: number; countAll: boolean },
): Prisma.Sql {
  const { columns } = KEYS[options.sort];
  const lists = terms.map(
    (term) => Prisma.sql`(
      SELECT image_id, ${Prisma.raw(columns.join(", "))} FROM search_postings p
      WHERE p.term_id = ${term} ${freeCondition(options.freeOnly)}
      ORDER BY ${orderBy(options.sort, "p")} LIMIT ${options.offset + options.limit})`,
  );
  const best = Prisma.raw(columns.map((column) => `max(${column}) AS ${column}`).join(", "));
  return Prisma.sql`
    SELECT i.id, i.titles, i.free, i.validate,
           ${options.countAll ? countAnyTerm(terms, options.freeOnly) : Prisma.sql`NULL::int`} AS matches
    FROM (
      SELECT image_id, ${best} FROM (${Prisma.join(lists, " UNION ALL ")}) hits
      GROUP BY image_id ORDER BY ${orderBy(options.sort)} LIMIT ${options.limit} OFFSET ${options.offset}
    ) page
    JOIN images i ON i.id = page.image_id
    ORDER BY ${orderBy(options.sort, "page")}`;
}

/**
 * How far the counter of the catalogue's changes that can alter an answer stands (see the search_changes
 * migration): a sequence never advanced reads its start value, as after its first change, so is_called tells
 * them apart.
 */
export const catalogueChanges = Prisma.sql`(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM search_catalogue_changes)::text`;

/** The counts of a search's pairs of terms, and where the counter of the catalogue's changes stood. */
export interface TermPairsRow {
  changes: string;
  pairs: TermPairRow[];
}

/**
 * The counts of images holding each pair of the terms at each pair of weights, and each term at each weight
 * (its pair with itself): the classes a search of several words ranks (see image-search.classes). As JSON,
 * which the driver parses at once, rather than hundreds of rows.
 */
export function termPairs(terms: readonly number[], freeOnly: boolean): Prisma.Sql {
  const documents = Prisma.raw(freeOnly ? "free_documents" : "documents");
  return Prisma.sql`
    SELECT ${catalogueChanges} AS changes,
           coalesce(json_agg(json_build_object('term_a', term_a, 'term_b', term_b, 'impact_a', impact_a,
                                               'impact_b', impact_b, 'documents', ${documents})), '[]') AS pairs
    FROM search_term_pairs
    WHERE term_a = ANY(${terms}::int[]) AND term_b = ANY(${terms}::int[]) AND ${documents} > 0`;
}

/**
 * A page read from groups of classes, how many images each class held (up to what the page needed), and
 * where the counter of the catalogue's changes stood.
 */
export interface ClassPageRow {
  changes: string;
  sizes: number[];
  page: ImageSummary[] | null;
  /** With `countTerms` asked: the images holding any of them, counted exactly. */
  matches: number | null;
}

/**
 * The images of groups of classes ranked after the first `firstRank` images of a search of `terms`: group
 * after group, newest first within a group; answers those ranked from `from` to before `to`. A class's images
 * are read from its pivot's postings at its weight, newest first, kept to those whose weights for the
 * search's terms are the class's (none for a term it lacks), until as many as the page can still need are
 * found, or as many as the class's count (past which it holds no more); or, for a class marked intersected,
 * found through the GIN index of the images' weighted terms. The classes are parameters, so that the
 * statement's text depends only on the number of terms and the free filter: prepared once per connection,
 * it is planned once.
 */
export function classPage(
  groups: readonly (readonly ImageClass[])[],
  terms: readonly number[],
  options: { freeOnly: boolean; firstRank: number; from: number; to: number; countTerms?: readonly number[] },
): Prisma.Sql {
  const classes = groups.flatMap((members, group) => members.map((member) => ({ group, member })));
  // Per term of the search, each class's weight for it (null: its images lack the term).
  const weights = terms.map((term) =>
    classes.map(({ member }) => member.held.find((entry) => entry.term === term)?.impact ?? null),
  );
  const columns = Prisma.raw(terms.map((_, index) => `w${index}`).join(", "));
  const weightOf = (index: number) => Prisma.raw(`c.w${index}`);
  return Prisma.sql`
    WITH classes AS (
      SELECT c.*,
             array_remove(ARRAY[${Prisma.join(
               terms.map(
                 (term, index) =>
                   Prisma.sql`CASE WHEN ${weightOf(index)} IS NOT NULL THEN ${term}::bigint * 65536 + ${weightOf(index)} END`,
               ),
             )}${options.freeOnly ? Prisma.sql`, 0` : Prisma.empty}]::bigint[], NULL) AS weighted,
             array_remove(ARRAY[${Prisma.join(
               terms.map(
                 (term, index) => Prisma.sql`CASE WHEN ${weightOf(index)} IS NULL THEN ${term}::int END`,
               ),
             )}]::int[], NULL) AS lacking
      FROM unnest(${classes.map(({ group }) => group)}::int[], ${classes.map(({ member }) => member.pivot.term)}::int[],
                  ${classes.map(({ member }) => member.pivot.impact)}::smallint[],
                  ${classes.map(({ member }) => Math.min(member.documents, options.to - options.firstRank))}::int[],
                  ${classes.map(({ member }) => member.isIntersected)}::boolean[],
                  ${Prisma.join(weights.map((column) => Prisma.sql`${column}::smallint[]`))})
           WITH ORDINALITY AS c("group", term, impact, "limit", intersected, ${columns}, at)
    ),
    walked AS (
      SELECT c.at, c."group", w.image_id, w.created_at FROM classes c
      CROSS JOIN LATERAL (
        (SELECT p.image_id, p.created_at FROM search_postings p
         WHERE NOT c.intersected AND p.term_id = c.term AND p.impact = c.impact ${freeCondition(options.freeOnly)}
           AND ${Prisma.join(
             terms.map(
               (term, index) =>
                 Prisma.sql`p.impacts[array_position(p.terms, ${term}::int)] IS NOT DISTINCT FROM ${weightOf(index)}`,
             ),
             " AND ",
           )}
         ORDER BY p.impact DESC, p.created_at DESC, p.image_id DESC LIMIT c."limit")
        UNION ALL
        (SELECT p.image_id, p.created_at FROM search_postings p
         WHERE c.intersected AND p.term_id = p.terms[1]
           AND search_weighted_terms(p.terms, p.impacts, p.free) @> c.weighted AND NOT p.terms && c.lacking
         ORDER BY p.created_at DESC, p.image_id DESC LIMIT c."limit")
      ) w
    ),
    sizes AS (
      SELECT c.at, c."group", count(w.image_id)::int AS size
      FROM classes c LEFT JOIN walked w ON w.at = c.at
      GROUP BY c.at, c."group"
    ),
    starts AS (
      SELECT "group", ${options.firstRank}::int + sum(sum(size)) OVER (ORDER BY "group") - sum(size) AS start
      FROM sizes GROUP BY "group"
    ),
    ranked AS (
      SELECT w.image_id, s.start + row_number() OVER (PARTITION BY w."group" ORDER BY w.created_at DESC, w.image_id DESC) - 1 AS rank
      FROM walked w JOIN starts s ON s."group" = w."group"
    )
    SELECT ${catalogueChanges} AS changes, (SELECT array_agg(size ORDER BY at) FROM sizes) AS sizes,
           (SELECT json_agg(json_build_object('id', i.id, 'titles', i.titles, 'free', i.free, 'validate', i.validate)
                   ORDER BY ranked.rank)
            FROM ranked JOIN images i ON i.id = ranked.image_id
            WHERE ranked.rank >= ${options.from}::int AND ranked.rank < ${options.to}::int) AS page,
           ${options.countTerms ? countAnyTerm(options.countTerms, options.freeOnly) : Prisma.sql`NULL::int`} AS matches`;
}

/** How many catalogue images (or free ones) there are, kept exact by the indexing triggers. */
export function catalogueSize(freeOnly: boolean): Prisma.Sql {
  return Prisma.sql`(SELECT sum(${Prisma.raw(freeOnly ? "free_documents" : "documents")})::int FROM search_catalogue_size)`;
}

/** Matches of any of the terms, counted exactly: only asked when each term has at most EXACT_COUNT_LIMIT. */
export function countAnyTerm(terms: readonly number[], freeOnly: boolean): Prisma.Sql {
  return Prisma.sql`(SELECT count(DISTINCT image_id)::int FROM search_postings p
    WHERE p.term_id = ANY(${terms}::int[]) ${freeCondition(freeOnly)})`;
}
