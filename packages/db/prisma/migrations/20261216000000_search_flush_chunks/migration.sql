-- A flush indexes one chunk of the pending images per call, each call its own transaction, where it used to
-- loop over every pending chunk in one. In one transaction, each chunk's rewritten blocks (a term's last
-- block, continued) stayed as dead rows no later chunk could prune, and a seed's flush, finding new pending
-- images as long as the seed wrote, ran as one transaction for the whole seed: on 200,000 realistic images it
-- spent about twice the CPU a chunk of 20,000 needs alone, and nothing it indexed was searchable before its end.
DROP FUNCTION "search_index_flush"();

-- Indexes the given catalogue images (not indexed yet), as before, in one statement: each image's impacts are
-- computed once, and the chunk's terms counted once, where the terms' insert unnested every document a second
-- time and the counts grouped every posting a second time (on 100,000 realistic images, 4.6 million
-- postings, these took a fifth of the indexing). New terms are inserted with their counts: the statement's
-- UPDATE of the known terms cannot see the rows it inserts. Writers still take turns (the advisory lock), so
-- no other writer inserts a term meanwhile.
CREATE OR REPLACE FUNCTION "search_index_add"(image_ids UUID[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    added BIGINT;
    free_added BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('imagehub.search_index'));
    WITH documents AS MATERIALIZED (
        SELECT i."id", i."search_document",
               (2 * nextval('search_document_numbers') + i."free"::int)::int AS "document"
        FROM (SELECT * FROM "images" WHERE "id" = ANY(image_ids) AND "source" = 'catalogue'
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

-- Indexes up to `chunk_size` pending images; answers how many (0: none was pending). A caller loops, one
-- transaction a call, until it answers 0. Flushes take turns, a chunk at a time.
CREATE FUNCTION "search_index_flush"(chunk_size INTEGER) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    chunk UUID[];
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('imagehub.search_index_flush'));
    PERFORM set_config('work_mem', '64MB', true);
    WITH taken AS (
        DELETE FROM "search_index_pending"
        WHERE "image_id" IN (SELECT "image_id" FROM "search_index_pending" LIMIT chunk_size)
        RETURNING "image_id"
    )
    SELECT array_agg("image_id") INTO chunk FROM taken;
    IF chunk IS NULL THEN
        RETURN 0;
    END IF;
    PERFORM search_index_add(chunk);
    RETURN cardinality(chunk);
END;
$$;
