-- Ranking three words or more finds the images holding all of them through a GIN index of every catalogue
-- image's terms, when there are few: intersecting the words' lists there costs a few nanoseconds per entry,
-- where walking them in weight order costs a microsecond or more per posting read, most of which lack a
-- word. One row per image (its terms and their weights, as each of its postings carries them): the images
-- found are read from a table about a seventeenth the size of the postings, whose pages stay in memory.
CREATE TABLE "search_documents" (
    "image_id" UUID NOT NULL,
    "free" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "terms" INTEGER[] NOT NULL,
    "impacts" SMALLINT[] NOT NULL,

    CONSTRAINT "search_documents_pkey" PRIMARY KEY ("image_id")
);

-- Each indexed image's postings all carry its terms: any one of them gives its row.
INSERT INTO "search_documents" ("image_id", "free", "created_at", "terms", "impacts")
SELECT "image_id", "free", "created_at", "terms", "impacts" FROM "search_postings" WHERE "term_id" = "terms"[1];

-- Written entry by entry (no pending list): a search reads new images at once, without scanning pending
-- entries as well.
CREATE INDEX "search_documents_terms_idx" ON "search_documents" USING gin ("terms") WITH (fastupdate = off);

-- A fixed sample of about one image in 256 (by the last byte of its id), read whole and index-only to
-- estimate how many images hold all the words before choosing how to find them.
CREATE INDEX "search_documents_sample_idx" ON "search_documents" ("image_id") INCLUDE ("terms")
    WHERE get_byte(uuid_send("image_id"), 15) = 0;

CREATE OR REPLACE FUNCTION "search_index_add"(image_ids UUID[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    added BIGINT;
    free_added BIGINT;
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
    ), inserted AS (
        INSERT INTO "search_postings"
            ("term_id", "image_id", "impact", "free", "popularity", "created_at", "terms", "impacts")
        SELECT * FROM postings
    ), documents_inserted AS (
        INSERT INTO "search_documents" ("image_id", "free", "created_at", "terms", "impacts")
        SELECT "id", "free", "created_at", "terms", "impacts" FROM documents
    ), counts AS (
        SELECT "term_id", count(*) AS "documents", count(*) FILTER (WHERE "free") AS "free_documents"
        FROM postings GROUP BY "term_id"
    ), terms AS (
        UPDATE "search_terms" t
        SET "documents" = t."documents" + c."documents",
            "free_documents" = t."free_documents" + c."free_documents"
        FROM counts c
        WHERE t."id" = c."term_id"
    )
    SELECT count(*), count(*) FILTER (WHERE "free") INTO added, free_added FROM documents;
    PERFORM search_catalogue_count(added, free_added);
END;
$$;

CREATE OR REPLACE FUNCTION "search_index_remove"(removed_id UUID, document tsvector, indexed_at TIMESTAMPTZ)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    was_indexed BOOLEAN;
    was_free BOOLEAN;
BEGIN
    DELETE FROM "search_documents" WHERE "image_id" = removed_id;
    WITH removed AS (
        DELETE FROM "search_postings" p USING "search_terms" t
        WHERE t."term" IN (SELECT lexeme FROM unnest(document)) AND p."term_id" = t."id"
            AND p."created_at" = indexed_at AND p."image_id" = removed_id
        RETURNING p."term_id", p."free"
    ), terms AS (
        UPDATE "search_terms" t
        SET "documents" = t."documents" - 1, "free_documents" = t."free_documents" - r."free"::int
        FROM removed r WHERE t."id" = r."term_id"
    )
    SELECT count(*) > 0, coalesce(bool_or("free"), false) INTO was_indexed, was_free FROM removed;
    IF was_indexed THEN
        PERFORM search_catalogue_count(-1, -was_free::int);
    END IF;
END;
$$;

-- A new date reaches the image's row too (ranking breaks ties by it); popularity is the postings' alone.
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
        IF OLD."created_at" <> NEW."created_at" THEN
            UPDATE "search_documents" SET "created_at" = NEW."created_at" WHERE "image_id" = NEW."id";
        END IF;
    END IF;
    RETURN NULL;
END;
$$;

-- A first seed drops and rebuilds the image rows' indexes too.
CREATE OR REPLACE FUNCTION "search_index_flush"() RETURNS integer LANGUAGE plpgsql AS $$
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
    SELECT sum("documents") INTO indexed FROM "search_catalogue_size";
    IF cardinality(image_ids) < indexed THEN
        PERFORM search_index_add(image_ids);
        RETURN cardinality(image_ids);
    END IF;
    PERFORM set_config('maintenance_work_mem', '256MB', true);
    PERFORM set_config('work_mem', '64MB', true);
    -- The indexes as they are defined now (keys first), so that this keeps working when they change.
    SELECT array_agg(
        CASE WHEN c.conname IS NULL THEN pg_get_indexdef(x.indexrelid)
             ELSE format('ALTER TABLE %s ADD CONSTRAINT %I %s', x.indrelid::regclass, c.conname,
                         pg_get_constraintdef(c.oid))
        END ORDER BY c.conname IS NULL)
    INTO definitions
    FROM pg_index x
    LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid
    WHERE x.indrelid IN ('"search_postings"'::regclass, '"search_documents"'::regclass);
    EXECUTE (
        SELECT string_agg(
            CASE WHEN c.conname IS NULL THEN format('DROP INDEX %s', x.indexrelid::regclass)
                 ELSE format('ALTER TABLE %s DROP CONSTRAINT %I', x.indrelid::regclass, c.conname)
            END, '; ')
        FROM pg_index x
        LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid
        WHERE x.indrelid IN ('"search_postings"'::regclass, '"search_documents"'::regclass));
    PERFORM search_index_add(image_ids);
    FOREACH definition IN ARRAY coalesce(definitions, '{}') LOOP
        EXECUTE definition;
    END LOOP;
    RETURN cardinality(image_ids);
END;
$$;
