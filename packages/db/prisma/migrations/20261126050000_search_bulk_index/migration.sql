-- Bulk loading the catalogue (seeding): images written with the search index deferred are listed here, and
-- indexed together by search_index_flush() in a few set-based statements, instead of each batch maintaining
-- six indexes of the postings row by row (5× the seeding time). Until then they are not searchable.
CREATE TABLE "search_index_pending" (
    "image_id" UUID NOT NULL,

    CONSTRAINT "search_index_pending_pkey" PRIMARY KEY ("image_id")
);

-- Indexes the given catalogue images (new ones, or ones whose words or free flag changed). Each image's terms
-- and weights are gathered per image, so that a large batch needs no sort of all its postings.
CREATE OR REPLACE FUNCTION "search_index_add"(image_ids UUID[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "search_terms" ("term")
    SELECT DISTINCT lexeme FROM "images", unnest("search_document")
    WHERE "id" = ANY(image_ids) AND "source" = 'catalogue'
    ORDER BY lexeme
    ON CONFLICT ("term") DO NOTHING;
    WITH documents AS MATERIALIZED (
        SELECT i."id", i."free", i."popularity", i."created_at", d."terms", d."impacts"
        FROM "images" i
        CROSS JOIN LATERAL (
            SELECT array_agg(t."id") AS "terms", array_agg(x."impact") AS "impacts"
            FROM imagehub_search_impacts(i."search_document") x JOIN "search_terms" t ON t."term" = x."term"
        ) d
        WHERE i."id" = ANY(image_ids) AND i."source" = 'catalogue' AND d."terms" IS NOT NULL
    ), postings AS (
        SELECT p."term_id", d."id", p."impact", d."free", d."popularity", d."created_at", d."terms", d."impacts"
        FROM documents d CROSS JOIN LATERAL unnest(d."terms", d."impacts") AS p("term_id", "impact")
    ), added AS (
        INSERT INTO "search_postings"
            ("term_id", "image_id", "impact", "free", "popularity", "created_at", "terms", "impacts")
        SELECT * FROM postings
    ), counts AS (
        SELECT "term_id", count(*) AS "documents", count(*) FILTER (WHERE "free") AS "free_documents",
               max("impact") AS "max_impact"
        FROM postings GROUP BY "term_id"
        UNION ALL
        SELECT (SELECT "id" FROM "search_terms" WHERE "term" = ''), count(*), count(*) FILTER (WHERE "free"), 0
        FROM documents
    )
    UPDATE "search_terms" t
    SET "documents" = t."documents" + c."documents",
        "free_documents" = t."free_documents" + c."free_documents",
        "max_impact" = greatest(t."max_impact", c."max_impact")
    FROM counts c
    WHERE t."id" = c."term_id";
END;
$$;

-- With `imagehub.search_index` set to 'deferred' in the inserting transaction, new images wait in
-- search_index_pending; otherwise they are searchable as soon as the statement that adds them commits.
CREATE OR REPLACE FUNCTION "search_index_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('imagehub.search_index', true) = 'deferred' THEN
        INSERT INTO "search_index_pending" ("image_id")
        SELECT "id" FROM "inserted" WHERE "source" = 'catalogue'
        ON CONFLICT DO NOTHING;
    ELSE
        PERFORM search_index_add(ARRAY(SELECT "id" FROM "inserted" WHERE "source" = 'catalogue'));
    END IF;
    RETURN NULL;
END;
$$;

-- A pending image has no postings yet: the flush indexes whatever it holds by then.
CREATE OR REPLACE FUNCTION "search_index_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM "search_index_pending" WHERE "image_id" = NEW."id") THEN
        RETURN NULL;
    END IF;
    IF OLD."search_document" IS DISTINCT FROM NEW."search_document" OR OLD."free" <> NEW."free"
        OR OLD."source" <> NEW."source" THEN
        IF OLD."source" = 'catalogue' THEN
            PERFORM search_index_remove(OLD."id", OLD."search_document", OLD."created_at");
        END IF;
        PERFORM search_index_add(ARRAY[NEW."id"]);
    ELSIF NEW."source" = 'catalogue' THEN
        UPDATE "search_postings" p SET "popularity" = NEW."popularity", "created_at" = NEW."created_at"
        FROM "search_terms" t
        WHERE t."term" IN (SELECT lexeme FROM unnest(NEW."search_document")) AND p."term_id" = t."id"
            AND p."created_at" = OLD."created_at" AND p."image_id" = NEW."id";
    END IF;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION "search_index_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM "search_index_pending" WHERE "image_id" = OLD."id";
    IF NOT FOUND THEN
        PERFORM search_index_remove(OLD."id", OLD."search_document", OLD."created_at");
    END IF;
    RETURN NULL;
END;
$$;

-- Indexes every pending image; answers how many there were. When they at least double the indexed catalogue
-- (a first seed), the postings' indexes are dropped and built again afterwards: one sort each instead of
-- millions of insertions. Meanwhile searches wait for the flush to commit.
CREATE FUNCTION "search_index_flush"() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    image_ids UUID[];
    indexed INTEGER;
    definitions TEXT[];
    definition TEXT;
BEGIN
    -- Two flushes at once would index the same images twice.
    PERFORM pg_advisory_xact_lock(hashtext('imagehub.search_index_flush'));
    WITH taken AS (DELETE FROM "search_index_pending" RETURNING "image_id")
    SELECT coalesce(array_agg("image_id"), '{}') INTO image_ids FROM taken;
    IF cardinality(image_ids) = 0 THEN
        RETURN 0;
    END IF;
    SELECT "documents" INTO indexed FROM "search_terms" WHERE "term" = '';
    IF cardinality(image_ids) < indexed THEN
        PERFORM search_index_add(image_ids);
        RETURN cardinality(image_ids);
    END IF;
    PERFORM set_config('maintenance_work_mem', '256MB', true);
    PERFORM set_config('work_mem', '64MB', true);
    -- The indexes as they are defined now (the key first), so that this keeps working when they change.
    SELECT array_agg(
        CASE WHEN c.conname IS NULL THEN pg_get_indexdef(x.indexrelid)
             ELSE format('ALTER TABLE "search_postings" ADD CONSTRAINT %I %s', c.conname, pg_get_constraintdef(c.oid))
        END ORDER BY c.conname IS NULL)
    INTO definitions
    FROM pg_index x
    LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid
    WHERE x.indrelid = '"search_postings"'::regclass;
    EXECUTE (
        SELECT string_agg(
            CASE WHEN c.conname IS NULL THEN format('DROP INDEX %s', x.indexrelid::regclass)
                 ELSE format('ALTER TABLE "search_postings" DROP CONSTRAINT %I', c.conname)
            END, '; ')
        FROM pg_index x
        LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid
        WHERE x.indrelid = '"search_postings"'::regclass);
    PERFORM search_index_add(image_ids);
    FOREACH definition IN ARRAY coalesce(definitions, '{}') LOOP
        EXECUTE definition;
    END LOOP;
    RETURN cardinality(image_ids);
END;
$$;
