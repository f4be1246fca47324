-- The catalogue's size was one row (search_terms' empty term) that every catalogue insert and delete updated:
-- every writer waited for the previous one to commit. It is now spread over 16 slots; a writer takes a slot
-- no other transaction holds (SKIP LOCKED), so that up to 16 writers never wait for each other, and readers
-- sum them. A slot may go negative (a delete counted where the insert was not): only the sum means anything.
CREATE TABLE "search_catalogue_size" (
    "slot" SMALLINT NOT NULL,
    "documents" INTEGER NOT NULL DEFAULT 0,
    "free_documents" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "search_catalogue_size_pkey" PRIMARY KEY ("slot")
);
INSERT INTO "search_catalogue_size" ("slot") SELECT generate_series(0, 15);
UPDATE "search_catalogue_size" s SET "documents" = t."documents", "free_documents" = t."free_documents"
FROM "search_terms" t WHERE t."term" = '' AND s."slot" = 0;
DELETE FROM "search_terms" WHERE "term" = '';

-- A slot this transaction may change without waiting: one it already holds, or a free one (starting from a
-- place that depends on the connection, so that writers spread out); when all are held, it waits for one.
CREATE FUNCTION "search_catalogue_slot"() RETURNS SMALLINT LANGUAGE plpgsql AS $$
DECLARE
    chosen SMALLINT;
BEGIN
    SELECT "slot" INTO chosen FROM "search_catalogue_size"
    ORDER BY ("slot" + pg_backend_pid()) % 16 LIMIT 1 FOR UPDATE SKIP LOCKED;
    RETURN coalesce(chosen, (pg_backend_pid() % 16)::smallint);
END;
$$;

-- Adds to the catalogue's size (negative numbers remove).
CREATE FUNCTION "search_catalogue_count"(documents BIGINT, free_documents BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF documents = 0 AND free_documents = 0 THEN
        RETURN;
    END IF;
    UPDATE "search_catalogue_size" s
    SET "documents" = s."documents" + search_catalogue_count.documents,
        "free_documents" = s."free_documents" + search_catalogue_count.free_documents
    WHERE s."slot" = search_catalogue_slot();
END;
$$;

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

-- The flush reads the catalogue's size from the slots.
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
