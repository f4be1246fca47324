-- A seed's build, made cheaper where it grew with the catalogue or paid for nothing.
--
-- The indexing statement found its images through the primary key AND the catalogue's popularity index: with
-- `id = ANY(array)` and source = 'catalogue', the planner joined both bitmaps, so each chunk read every
-- catalogue image's entry of that index (1,000,000 entries a chunk on 1,000,000 images). Its images are now
-- a semi-join on the primary key: a lookup each, whatever the catalogue's size.
CREATE OR REPLACE FUNCTION "search_index_add"(image_ids UUID[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    added BIGINT;
    free_added BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('imagehub.search_index'));
    WITH documents AS MATERIALIZED (
        SELECT i."id", i."search_document",
               (2 * nextval('search_document_numbers') + i."free"::int)::int AS "document"
        FROM (SELECT * FROM "images" WHERE "id" IN (SELECT unnest(image_ids)) AND "source" = 'catalogue'
              ORDER BY "created_at", "id") i
    ), recorded AS (
        INSERT INTO "search_documents" ("image_id", "document") SELECT "id", "document" FROM documents
    ), impacts AS MATERIALIZED (
        SELECT d."document", x."term", x."impact"
        FROM documents d CROSS JOIN LATERAL imagehub_search_impacts(d."search_document") x
    ), counts AS MATERIALIZED (
        SELECT "term", count(*) AS "documents", count(*) FILTER (WHERE "document" % 2 = 1) AS "free_documents"
        FROM impacts GROUP BY "term"
    ), known AS MATERIALIZED (
        SELECT t."id", c.* FROM counts c JOIN "search_terms" t ON t."term" = c."term"
    ), created AS (
        INSERT INTO "search_terms" ("term", "documents", "free_documents", "version")
        SELECT c."term", c."documents", c."free_documents", 1 FROM counts c
        WHERE NOT EXISTS (SELECT FROM known k WHERE k."term" = c."term")
        ORDER BY c."term"
        RETURNING "id", "term"
    ), counted AS (
        UPDATE "search_terms" t
        SET "documents" = t."documents" + k."documents", "free_documents" = t."free_documents" + k."free_documents",
            "version" = t."version" + 1
        FROM known k
        WHERE t."id" = k."id"
    ), terms AS MATERIALIZED (
        SELECT "id", "term" FROM known UNION ALL SELECT "id", "term" FROM created
    ), postings AS MATERIALIZED (
        SELECT t."id" AS "term_id", i."document", i."impact" FROM impacts i JOIN terms t ON t."term" = i."term"
    ), tails AS (
        DELETE FROM "search_blocks" b
        USING known n
        WHERE b."term_id" = n."id" AND length(b."impacts") < 128
          AND b."first_document" = (SELECT max(x."first_document") FROM "search_blocks" x WHERE x."term_id" = n."id")
        RETURNING b.*
    ), grouped AS (
        SELECT p."term_id", p."block", min(p."document") AS "first_document", max(p."document") AS "last_document",
               max(p."impact") AS "max_impact",
               string_agg(int4send(p."document"), ''::bytea ORDER BY p."document") AS "documents",
               string_agg(search_impact_byte(p."impact"), ''::bytea ORDER BY p."document") AS "impacts"
        FROM (SELECT n.*, (row_number() OVER (PARTITION BY n."term_id" ORDER BY n."document") - 1
                           + coalesce(length(t."impacts"), 0)) / 128 AS "block"
              FROM postings n LEFT JOIN tails t ON t."term_id" = n."term_id") p
        GROUP BY p."term_id", p."block"
    ), written AS (
        INSERT INTO "search_blocks" ("term_id", "first_document", "last_document", "max_impact", "documents", "impacts")
        SELECT g."term_id", coalesce(t."first_document", g."first_document"), g."last_document",
               greatest(g."max_impact", t."max_impact"),
               coalesce(t."documents", ''::bytea) || g."documents", coalesce(t."impacts", ''::bytea) || g."impacts"
        FROM grouped g LEFT JOIN tails t ON t."term_id" = g."term_id" AND g."block" = 0
    )
    SELECT count(*), count(*) FILTER (WHERE "document" % 2 = 1) INTO added, free_added FROM documents;
    PERFORM search_catalogue_count(added, free_added);
END;
$$;

-- The spelling dictionary's words of an insert: its statement was planned for millions of rows and
-- JIT-compiled on each batch (70 ms or more for 5,000 images, a fifth of the trigger); known words are left
-- out before the insert rather than refused by it.
CREATE OR REPLACE FUNCTION "search_words_collect_inserted"() RETURNS trigger LANGUAGE plpgsql
SET jit = off AS $$
BEGIN
    INSERT INTO "search_words" ("word")
    SELECT n.word FROM (
        SELECT DISTINCT word FROM "inserted", imagehub_words("inserted"."titles", "inserted"."tags") AS word
        WHERE "inserted"."source" = 'catalogue'
    ) n
    WHERE NOT EXISTS (SELECT FROM "search_words" s WHERE s."word" = n.word)
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$;
