import { Prisma } from "@imagehub/db";
import type { ImageSummary, SearchSort } from "./catalogue.repository.js";
import type { TieKey } from "./image-search.ranking.js";

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

/** Where a walk down a term's postings stopped: the last posting read (its weight, then date and image). */
export interface PostingKey extends TieKey {
  impact: number;
}

/**
 * The best images ranking has found so far, in rank order, as PostgreSQL array literals: handed from round
 * to round untouched, since parsing thousands of them (a deep page) would hold the API's event loop for tens
 * of milliseconds.
 */
export interface RankedImages {
  ids: string;
  scores: string;
  createdAts: string;
}

export const NONE_RANKED: RankedImages = { ids: "{}", scores: "{}", createdAts: "{}" };

/** A round of ranking: the best images found so far, and how far each list was read this round. */
export interface RoundRow {
  ids: string;
  scores: string;
  created_ats: string;
  /** How many images `ids` holds, and the last of them when it holds the `needed`. */
  ranked: number;
  needed_score: number | null;
  needed_created_at: Date | null;
  needed_id: string | null;
  walked: number[];
  /** Per list, the last posting read this round: its weight, date and image. */
  last_impacts: number[];
  last_created_ats: (Date | null)[];
  last_image_ids: (string | null)[];
  /** The images from `pageFrom` on, in rank order: the page, when this round is the last. */
  page: ImageSummary[] | null;
  /** With `countTerms` asked: the images holding any of them, counted exactly. */
  matches: number | null;
}

/**
 * The posting's image holds a term of each of `words`. `= ANY` stops at the first equal element and compares
 * integers directly: on a scan that rejects most postings it costs about half what array overlap (`&&`) does.
 */
function holdsAll(words: readonly (readonly number[])[]): Prisma.Sql {
  return Prisma.join(
    words.map(
      (terms) =>
        Prisma.sql`(${Prisma.join(
          terms.map((term) => Prisma.sql`${term}::int = ANY(p.terms)`),
          " OR ",
        )})`,
    ),
    " AND ",
  );
}

/**
 * A list ranking reads: a term's postings, only those of images also holding a term of each `required`, the
 * next `limit` of them after `after` (from the top in a list's first round).
 */
export interface RankedList {
  term: number;
  required: readonly (readonly number[])[];
  limit: number;
  after: PostingKey | undefined;
}

/** An image's BM25 score, read off its terms and their weights (which each of its postings carries too). */
function scoreOf(words: readonly { terms: readonly number[]; idf: number }[]): Prisma.Sql {
  // A word's weight in an image is its best term's; array_position finds it on the posting.
  return Prisma.join(
    words.map(
      (word) =>
        Prisma.sql`${word.idf}::float8 * greatest(0, ${Prisma.join(
          word.terms.map((term) => Prisma.sql`p.impacts[array_position(p.terms, ${term}::int)]`),
        )})`,
    ),
    " + ",
  );
}

/** The images of `best` (ranked by `rank`) past the first `from`, as the page's JSON. */
function pageOf(from: number): Prisma.Sql {
  return Prisma.sql`(SELECT json_agg(json_build_object('id', i.id, 'titles', i.titles, 'free', i.free, 'validate', i.validate)
                   ORDER BY best.rank)
            FROM best JOIN images i ON i.id = best.image_id WHERE best.rank > ${from})`;
}

/**
 * One round of ranking: the next postings of each list, best weight first, scored on the index entry itself
 * (every term of the image and its weight are stored with each posting), ranked with the best images of
 * the rounds before (`found`); answers the best `needed` of them, how far each list was read, and the
 * images from `pageFrom` on. With `lackingAll`, images holding a term of each of its words are left out.
 */
export function rankingRound(
  lists: readonly RankedList[],
  words: readonly { terms: readonly number[]; idf: number }[],
  options: {
    found: RankedImages;
    lackingAll: readonly (readonly number[])[] | undefined;
    freeOnly: boolean;
    needed: number;
    pageFrom: number;
    countTerms?: readonly number[];
  },
): Prisma.Sql {
  const lacking = options.lackingAll ? Prisma.sql`AND NOT (${holdsAll(options.lackingAll)})` : Prisma.empty;
  const score = scoreOf(words);
  // Each posting is scored as it is read: what a round keeps of it is narrow, whatever the image's terms.
  const reads = lists.map(
    ({ term, required, limit, after }, list) => Prisma.sql`(
      SELECT ${list}::int AS list, p.image_id, p.impact, p.created_at, ${score} AS score
      FROM search_postings p
      WHERE p.term_id = ${term} ${freeCondition(options.freeOnly)}
        ${required.length > 0 ? Prisma.sql`AND ${holdsAll(required)}` : Prisma.empty} ${lacking}
        ${after ? Prisma.sql`AND (p.impact, p.created_at, p.image_id) < (${after.impact}::smallint, ${after.createdAt}::timestamptz, ${after.id}::uuid)` : Prisma.empty}
      ORDER BY p.impact DESC, p.created_at DESC, p.image_id DESC LIMIT ${limit})`,
  );
  const ranked = Prisma.sql`ORDER BY score DESC, created_at DESC, image_id DESC`;
  const { found } = options;
  return Prisma.sql`
    WITH walked AS (${Prisma.join(reads, " UNION ALL ")}),
    best AS (
      SELECT image_id, created_at, score, row_number() OVER (${ranked}) AS rank FROM (
        SELECT image_id, created_at, score FROM (
          -- An image read again (through another of its terms, or in an earlier round) scores the same.
          SELECT image_id, max(created_at) AS created_at, max(score) AS score FROM (
            SELECT image_id, created_at, score FROM walked
            UNION ALL
            SELECT * FROM unnest(${found.ids}::text::uuid[], ${found.createdAts}::text::timestamptz[], ${found.scores}::text::float8[])
          ) candidates
          GROUP BY image_id
        ) scored
        ${ranked} LIMIT ${options.needed}
      ) top
    )
    SELECT (SELECT coalesce(array_agg(image_id ${ranked}), '{}')::text FROM best) AS ids,
           (SELECT coalesce(array_agg(score ${ranked}), '{}')::text FROM best) AS scores,
           (SELECT coalesce(array_agg(created_at ${ranked}), '{}')::text FROM best) AS created_ats,
           (SELECT count(*)::int FROM best) AS ranked,
           (SELECT score FROM best WHERE rank = ${options.needed}) AS needed_score,
           (SELECT created_at FROM best WHERE rank = ${options.needed}) AS needed_created_at,
           (SELECT image_id FROM best WHERE rank = ${options.needed}) AS needed_id,
           array_agg(coalesce(read.walked, 0) ORDER BY l.list) AS walked,
           array_agg(coalesce(last.impact, 0) ORDER BY l.list) AS last_impacts,
           array_agg(last.created_at ORDER BY l.list) AS last_created_ats,
           array_agg(last.image_id ORDER BY l.list) AS last_image_ids,
           ${pageOf(options.pageFrom)} AS page,
           ${options.countTerms ? countAnyTerm(options.countTerms, options.freeOnly) : Prisma.sql`NULL::int`} AS matches
    FROM generate_series(0, ${lists.length - 1}) AS l(list)
    LEFT JOIN (SELECT list, count(*)::int AS walked FROM walked GROUP BY list) read ON read.list = l.list
    -- One pass over the list's postings keeping the lowest, rather than a sort of them all.
    LEFT JOIN LATERAL (
      SELECT impact::int, created_at, image_id FROM walked
      WHERE walked.list = l.list ORDER BY impact, created_at, image_id LIMIT 1) last ON true`;
}

/** Ranking's answer when the images holding every word were few enough to be found through their terms. */
export interface IntersectionRow {
  /** Whether the sample said they were few enough: otherwise nothing else was read. */
  intersected: boolean;
  /** How many images hold every word. */
  hits: number;
  page: ImageSummary[] | null;
  matches: number | null;
}

/**
 * The images holding a term of each word, found through the GIN index of every image's terms
 * (search_documents), scored and ranked whole: the best `needed`, and those from `pageFrom` on. Only when
 * the sample of about one image in 256 estimates that at most `limit` of the `catalogue` images hold them,
 * or when the catalogue is too small to sample; otherwise the statement stops after the sample.
 */
export function rankIntersection(
  words: readonly { terms: readonly number[]; idf: number }[],
  options: {
    catalogue: number;
    limit: number;
    needed: number;
    pageFrom: number;
    countTerms?: readonly number[];
  },
): Prisma.Sql {
  const ranked = Prisma.sql`ORDER BY score DESC, created_at DESC, image_id DESC`;
  const overlapsAll = Prisma.join(
    words.map((word) => Prisma.sql`p.terms && ${word.terms}::int[]`),
    " AND ",
  );
  return Prisma.sql`
    WITH sample AS (
      SELECT count(*) AS sampled, count(*) FILTER (WHERE ${holdsAll(words.map((word) => word.terms))}) AS holding
      FROM search_documents p WHERE get_byte(uuid_send(p.image_id), 15) = 0
    ),
    few AS (
      SELECT holding * ${options.catalogue}::bigint <= ${options.limit}::bigint * sampled AS intersected FROM sample
    ),
    holding AS (
      SELECT p.image_id, p.created_at, ${scoreOf(words)} AS score
      FROM search_documents p
      WHERE ${overlapsAll} AND (SELECT intersected FROM few)
    ),
    best AS (
      SELECT image_id, row_number() OVER (${ranked}) AS rank
      FROM (SELECT * FROM holding ${ranked} LIMIT ${options.needed}) top
    )
    SELECT (SELECT intersected FROM few) AS intersected,
           (SELECT count(*)::int FROM holding) AS hits,
           ${pageOf(options.pageFrom)} AS page,
           ${options.countTerms ? countAnyTerm(options.countTerms, false) : Prisma.sql`NULL::int`} AS matches`;
}

/** A page of images ranked in one statement. */
export interface PageRow {
  page: ImageSummary[] | null;
}

/**
 * The best `needed` images holding some of the words but not all, and those from `pageFrom` on, ranked
 * without walking the lists in rounds. Those holding two words or more (with three words or more) are found
 * through the GIN index of images' terms and scored whole. Those holding one word are read from each of its
 * terms' lists, best weight first, `needed` of them, kept to images holding no other word: an image of one
 * word further down its lists has `needed` images of that word ahead of it.
 */
export function rankSomeWords(
  words: readonly { terms: readonly number[]; idf: number }[],
  options: { freeOnly: boolean; needed: number; pageFrom: number },
): Prisma.Sql {
  const ranked = Prisma.sql`ORDER BY score DESC, created_at DESC, image_id DESC`;
  const score = scoreOf(words);
  const wordTerms = words.map((word) => word.terms);
  const singles = words.flatMap((word, index) => {
    const others = words.filter((_, other) => other !== index).flatMap((other) => other.terms);
    return word.terms.map(
      (term) => Prisma.sql`(
        SELECT p.image_id, p.created_at, ${score} AS score FROM search_postings p
        WHERE p.term_id = ${term} ${freeCondition(options.freeOnly)} AND NOT (${holdsAll([others])})
        ORDER BY p.impact DESC, p.created_at DESC, p.image_id DESC LIMIT ${options.needed})`,
    );
  });
  const pairs = words.flatMap((word, index) =>
    words
      .slice(index + 1)
      .map((other) => Prisma.sql`(p.terms && ${word.terms}::int[] AND p.terms && ${other.terms}::int[])`),
  );
  const several =
    words.length < 3
      ? []
      : [
          Prisma.sql`(
        SELECT p.image_id, p.created_at, ${score} AS score FROM search_documents p
        WHERE (${Prisma.join(pairs, " OR ")}) AND NOT (${holdsAll(wordTerms)}) ${freeCondition(options.freeOnly)})`,
        ];
  return Prisma.sql`
    WITH best AS (
      SELECT image_id, row_number() OVER (${ranked}) AS rank FROM (
        -- An image of two terms of one word is read from both lists, and scores the same.
        SELECT image_id, max(created_at) AS created_at, max(score) AS score
        FROM (${Prisma.join([...several, ...singles], " UNION ALL ")}) candidates
        GROUP BY image_id ${ranked} LIMIT ${options.needed}
      ) top
    )
    SELECT ${pageOf(options.pageFrom)} AS page`;
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
