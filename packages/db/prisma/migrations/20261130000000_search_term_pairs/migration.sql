-- Ranking several words by the classes of weights their images hold. For each pair of terms, how many
-- catalogue images hold both at each pair of weights; a term paired with itself gives how many hold it at
-- each weight. A class of images (those holding given terms at given weights) has one score, so ranking
-- sorts a few dozen classes instead of reading postings until no unread image could score higher, and reads
-- only the classes the page falls in. An image's weights all follow from its length and each term's
-- frequency in it, so a pair of terms meets at a few dozen pairs of weights: 700,000 rows (35 MB) for a
-- catalogue of a million images over 300 terms. Counted by the same triggers as the postings.
CREATE TABLE "search_term_pairs" (
    "term_a" INTEGER NOT NULL,
    "term_b" INTEGER NOT NULL,
    "impact_a" SMALLINT NOT NULL,
    "impact_b" SMALLINT NOT NULL,
    "documents" INTEGER NOT NULL DEFAULT 0,
    "free_documents" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "search_term_pairs_pkey" PRIMARY KEY ("term_a", "term_b", "impact_a", "impact_b"),
    CONSTRAINT "search_term_pairs_ordered" CHECK ("term_a" <= "term_b")
);

-- Every pair of an image's terms with their weights, each term paired with itself too.
CREATE FUNCTION "search_term_pairs_of"(terms INTEGER[], impacts SMALLINT[])
RETURNS TABLE ("term_a" INTEGER, "term_b" INTEGER, "impact_a" SMALLINT, "impact_b" SMALLINT)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT a."term", b."term", a."impact", b."impact"
    FROM unnest(terms, impacts) AS a("term", "impact"), unnest(terms, impacts) AS b("term", "impact")
    WHERE a."term" <= b."term"
$$;

-- The catalogue already indexed, counted from each image's row of terms: images of the same terms at the same
-- weights (a catalogue's repeated titles and tags) are counted together, their pairs listed once. In key
-- order, so that the rows of a pair of terms share a page or two.
SET LOCAL work_mem = '256MB';
INSERT INTO "search_term_pairs" ("term_a", "term_b", "impact_a", "impact_b", "documents", "free_documents")
SELECT x.*, sum(d."documents"), sum(d."free_documents")
FROM (SELECT "terms", "impacts", count(*) AS "documents", count(*) FILTER (WHERE "free") AS "free_documents"
      FROM "search_documents" GROUP BY "terms", "impacts") d
CROSS JOIN LATERAL search_term_pairs_of(d."terms", d."impacts") x
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4;

-- The classes tell where the images holding every word are: the GIN index of each image's terms that ranking
-- intersected them with goes, with its table. Classes are read from their postings, or found through the
-- index below.
DROP TABLE "search_documents";

-- An image's terms at their weights (term × 65536 + weight; a weight is under 2,200), and 0 for a free image.
CREATE FUNCTION "search_weighted_terms"(terms INTEGER[], impacts SMALLINT[], free BOOLEAN)
RETURNS BIGINT[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT array_agg(x."term"::bigint * 65536 + x."impact") || CASE WHEN free THEN ARRAY[0::bigint] ELSE '{}' END
    FROM unnest(terms, impacts) AS x("term", "impact")
$$;

-- A class whose count is only a bound (its terms meet in pairs, maybe never all together) and whose pivot has
-- many postings at its weight is found by intersecting its terms' lists here, at tens of nanoseconds an entry,
-- rather than by reading every one of those postings: one entry per image (the posting of its first term),
-- written entry by entry (no pending list) so that a search reads new images at once.
CREATE INDEX "search_postings_weighted_terms_idx" ON "search_postings"
    USING gin (search_weighted_terms("terms", "impacts", "free")) WITH (fastupdate = off)
    WHERE "term_id" = "terms"[1];

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
    ), pairs AS (
        -- Images of the same terms at the same weights counted together; rows in key order, so that
        -- concurrent writers lock them in one order and never deadlock.
        INSERT INTO "search_term_pairs" AS s
            ("term_a", "term_b", "impact_a", "impact_b", "documents", "free_documents")
        SELECT x.*, sum(d."documents"), sum(d."free_documents")
        FROM (SELECT "terms", "impacts", count(*) AS "documents", count(*) FILTER (WHERE "free") AS "free_documents"
              FROM documents GROUP BY "terms", "impacts") d
        CROSS JOIN LATERAL search_term_pairs_of(d."terms", d."impacts") x
        GROUP BY 1, 2, 3, 4
        ORDER BY 1, 2, 3, 4
        ON CONFLICT ("term_a", "term_b", "impact_a", "impact_b") DO UPDATE
        SET "documents" = s."documents" + excluded."documents",
            "free_documents" = s."free_documents" + excluded."free_documents"
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
        RETURNING p."term_id", p."impact", p."free"
    ), terms AS (
        UPDATE "search_terms" t
        SET "documents" = t."documents" - 1, "free_documents" = t."free_documents" - r."free"::int
        FROM removed r WHERE t."id" = r."term_id"
    ), pairs AS (
        INSERT INTO "search_term_pairs" AS s
            ("term_a", "term_b", "impact_a", "impact_b", "documents", "free_documents")
        SELECT x.*, -1, -r."free"::int
        FROM (SELECT array_agg("term_id") AS "terms", array_agg("impact") AS "impacts", bool_or("free") AS "free"
              FROM removed) r
        CROSS JOIN LATERAL search_term_pairs_of(r."terms", r."impacts") x
        ORDER BY 1, 2, 3, 4
        ON CONFLICT ("term_a", "term_b", "impact_a", "impact_b") DO UPDATE
        SET "documents" = s."documents" + excluded."documents",
            "free_documents" = s."free_documents" + excluded."free_documents"
    )
    SELECT count(*) > 0, coalesce(bool_or("free"), false) INTO was_indexed, was_free FROM removed;
    IF was_indexed THEN
        PERFORM search_catalogue_count(-1, -was_free::int);
    END IF;
END;
$$;

-- A new date reaches the postings alone now.
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

-- A first seed drops and rebuilds the postings' indexes alone again (the pairs are counted into their key).
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
    WHERE x.indrelid = '"search_postings"'::regclass;
    EXECUTE (
        SELECT string_agg(
            CASE WHEN c.conname IS NULL THEN format('DROP INDEX %s', x.indexrelid::regclass)
                 ELSE format('ALTER TABLE %s DROP CONSTRAINT %I', x.indrelid::regclass, c.conname)
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
