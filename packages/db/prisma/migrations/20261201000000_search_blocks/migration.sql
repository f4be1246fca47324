-- Catalogue search on a textbook inverted index: for each term, its postings (document number, impact) in
-- blocks of up to 128, each block one row holding its postings packed (4 bytes a document number, 1 byte an
-- impact) with the block's range and largest impact. Storage grows with the catalogue's text, one posting per
-- term of an image, with no copy of the image in its postings. The API reads a search's terms' postings and
-- ranks them itself (catalogue/search/). This replaces the postings with a copy of each image's terms
-- (search_postings, whose size grew with the square of an image's terms) and the counts of pairs of terms
-- (search_term_pairs); the catalogue already indexed is indexed again below.

DROP TRIGGER "search_index_inserted" ON "images";
DROP TRIGGER "search_index_updated" ON "images";
DROP TRIGGER "search_index_deleted" ON "images";
DROP FUNCTION "search_index_inserted"();
DROP FUNCTION "search_index_updated"();
DROP FUNCTION "search_index_deleted"();
DROP FUNCTION "search_index_flush"();
DROP FUNCTION "search_index_add"(UUID[]);
DROP FUNCTION "search_index_remove"(UUID, tsvector, TIMESTAMPTZ);
DROP TABLE "search_term_pairs";
DROP TABLE "search_postings";
DROP FUNCTION "search_term_pairs_of"(INTEGER[], SMALLINT[]);
DROP FUNCTION "search_weighted_terms"(INTEGER[], SMALLINT[], BOOLEAN);
DROP FUNCTION "imagehub_search_impacts"(tsvector);

-- Terms and the catalogue's size are counted again from nothing below. `version` moves whenever a term's
-- postings change, so that an API process can keep a term's postings in memory and know when they are stale.
TRUNCATE "search_terms" RESTART IDENTITY;
UPDATE "search_catalogue_size" SET "documents" = 0, "free_documents" = 0;
ALTER TABLE "search_terms" ADD COLUMN "version" BIGINT NOT NULL DEFAULT 0;

-- An indexed image's document number: twice a number drawn in indexing order, plus 1 for a free image, so
-- that postings tell free images apart without a lookup, and a term's postings come in indexing order.
CREATE SEQUENCE "search_document_numbers";
CREATE TABLE "search_documents" (
    "image_id" UUID NOT NULL,
    "document" INTEGER NOT NULL,

    CONSTRAINT "search_documents_pkey" PRIMARY KEY ("image_id")
);
CREATE UNIQUE INDEX "search_documents_document_key" ON "search_documents"("document");

CREATE TABLE "search_blocks" (
    "term_id" INTEGER NOT NULL,
    "first_document" INTEGER NOT NULL,
    "last_document" INTEGER NOT NULL,
    "max_impact" SMALLINT NOT NULL,
    -- Document numbers, ascending, 4 bytes each (big-endian), and one impact byte per document.
    "documents" BYTEA NOT NULL,
    "impacts" BYTEA NOT NULL,

    CONSTRAINT "search_blocks_pkey" PRIMARY KEY ("term_id", "first_document")
);

-- A term's impact in an image: BM25's term-frequency part, with saturation (k1 = 1.2) and length
-- normalisation (b = 0.75) against a reference length of 60 (about a stock image's two titles and keywords),
-- fixed so that impacts never need computing again. A title occurrence (weight A, either language) counts
-- twice, a keyword (B) once. Scaled to 1–255 to fit a byte; the term's rarity (idf) is applied when searching.
CREATE FUNCTION "imagehub_search_impacts"(document tsvector) RETURNS TABLE ("term" TEXT, "impact" SMALLINT)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    WITH lexemes AS (
        SELECT lexeme,
               2 * cardinality(array_positions(weights, 'A')) + cardinality(array_positions(weights, 'B'))
                   AS frequency
        FROM unnest(document)
    ), length AS (SELECT sum(frequency) AS weighted FROM lexemes)
    SELECT lexeme,
           greatest(1, round(255 * frequency / (frequency + 1.2 * (0.25 + 0.75 * weighted / 60.0))))::smallint
    FROM lexemes, length
$$;

-- A block's document numbers, unpacked (deletes and merges only: searches unpack blocks in the API).
CREATE FUNCTION "search_block_documents"(documents BYTEA) RETURNS INTEGER[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
    SELECT coalesce(array_agg((get_byte(documents, 4 * i) << 24) | (get_byte(documents, 4 * i + 1) << 16)
                              | (get_byte(documents, 4 * i + 2) << 8) | get_byte(documents, 4 * i + 3) ORDER BY i),
                    '{}')
    FROM generate_series(0, length(documents) / 4 - 1) AS i
$$;

CREATE FUNCTION "search_block_impacts"(impacts BYTEA) RETURNS SMALLINT[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
    SELECT coalesce(array_agg(get_byte(impacts, i)::smallint ORDER BY i), '{}')
    FROM generate_series(0, length(impacts) - 1) AS i
$$;

CREATE FUNCTION "search_impact_byte"(impact SMALLINT) RETURNS BYTEA
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
    SELECT decode(lpad(to_hex(impact::int), 2, '0'), 'hex')
$$;

-- Indexes the given catalogue images (not indexed yet). Writers of the index take one lock in turn, until they
-- commit: document numbers then grow in commit order, so that new postings always go after a term's last
-- block, and two writers never lock the same blocks in different orders. Each term's last block, when not
-- full, is merged with its new postings.
CREATE FUNCTION "search_index_add"(image_ids UUID[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    added BIGINT;
    free_added BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('imagehub.search_index'));
    INSERT INTO "search_terms" ("term")
    SELECT DISTINCT lexeme FROM "images", unnest("search_document")
    WHERE "id" = ANY(image_ids) AND "source" = 'catalogue'
    ORDER BY lexeme
    ON CONFLICT ("term") DO NOTHING;
    WITH documents AS MATERIALIZED (
        SELECT i."id", i."search_document",
               (2 * nextval('search_document_numbers') + i."free"::int)::int AS "document"
        FROM (SELECT * FROM "images" WHERE "id" = ANY(image_ids) AND "source" = 'catalogue'
              ORDER BY "created_at", "id") i
    ), recorded AS (
        INSERT INTO "search_documents" ("image_id", "document") SELECT "id", "document" FROM documents
    ), postings AS MATERIALIZED (
        SELECT t."id" AS "term_id", d."document", x."impact"
        FROM documents d CROSS JOIN LATERAL imagehub_search_impacts(d."search_document") x
        JOIN "search_terms" t ON t."term" = x."term"
    ), counted AS (
        UPDATE "search_terms" t
        SET "documents" = t."documents" + c."documents", "free_documents" = t."free_documents" + c."free_documents",
            "version" = t."version" + 1
        FROM (SELECT "term_id", count(*) AS "documents", count(*) FILTER (WHERE "document" % 2 = 1) AS "free_documents"
              FROM postings GROUP BY "term_id") c
        WHERE t."id" = c."term_id"
    ), tails AS (
        DELETE FROM "search_blocks" b
        USING (SELECT DISTINCT "term_id" FROM postings) n
        WHERE b."term_id" = n."term_id" AND length(b."impacts") < 128
          AND b."first_document" = (SELECT max(x."first_document") FROM "search_blocks" x WHERE x."term_id" = n."term_id")
        RETURNING b.*
    ), merged AS (
        SELECT "term_id", "document", "impact" FROM postings
        UNION ALL
        SELECT tails."term_id", u."document", u."impact"
        FROM tails, unnest(search_block_documents(tails."documents"), search_block_impacts(tails."impacts"))
                    AS u("document", "impact")
    ), written AS (
        INSERT INTO "search_blocks" ("term_id", "first_document", "last_document", "max_impact", "documents", "impacts")
        SELECT "term_id", min("document"), max("document"), max("impact"),
               string_agg(int4send("document"), ''::bytea ORDER BY "document"),
               string_agg(search_impact_byte("impact"), ''::bytea ORDER BY "document")
        FROM (SELECT *, (row_number() OVER (PARTITION BY "term_id" ORDER BY "document") - 1) / 128 AS "block"
              FROM merged) numbered
        GROUP BY "term_id", "block"
    )
    SELECT count(*), count(*) FILTER (WHERE "document" % 2 = 1) INTO added, free_added FROM documents;
    PERFORM search_catalogue_count(added, free_added);
END;
$$;

-- Removes indexed images' postings: each block holding one of them is written again without them (a block
-- left empty goes). A block's range and largest impact stay as they were: bounds are all searching asks of them.
CREATE FUNCTION "search_index_remove"(removed_ids UUID[], indexed_documents tsvector[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    removed_count BIGINT;
    free_removed BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('imagehub.search_index'));
    WITH removed AS (
        DELETE FROM "search_documents" s USING unnest(removed_ids, indexed_documents) AS r("image_id", "text")
        WHERE s."image_id" = r."image_id"
        RETURNING s."document", r."text"
    ), lost AS MATERIALIZED (
        SELECT t."id" AS "term_id", r."document"
        FROM removed r CROSS JOIN LATERAL unnest(r."text") AS x JOIN "search_terms" t ON t."term" = x.lexeme
    ), counted AS (
        UPDATE "search_terms" t
        SET "documents" = t."documents" - c."documents", "free_documents" = t."free_documents" - c."free_documents",
            "version" = t."version" + 1
        FROM (SELECT "term_id", count(*) AS "documents", count(*) FILTER (WHERE "document" % 2 = 1) AS "free_documents"
              FROM lost GROUP BY "term_id") c
        WHERE t."id" = c."term_id"
    ), blocks AS (
        SELECT b."term_id", b."first_document", b."documents", b."impacts", array_agg(l."document") AS "gone"
        FROM lost l
        CROSS JOIN LATERAL (
            SELECT * FROM "search_blocks" x WHERE x."term_id" = l."term_id" AND x."first_document" <= l."document"
            ORDER BY x."first_document" DESC LIMIT 1
        ) b
        GROUP BY b."term_id", b."first_document", b."documents", b."impacts"
    ), kept AS (
        SELECT b."term_id", b."first_document",
               string_agg(int4send(u."document"), ''::bytea ORDER BY u."document")
                   FILTER (WHERE u."document" <> ALL(b."gone")) AS "documents",
               string_agg(search_impact_byte(u."impact"), ''::bytea ORDER BY u."document")
                   FILTER (WHERE u."document" <> ALL(b."gone")) AS "impacts"
        FROM blocks b, unnest(search_block_documents(b."documents"), search_block_impacts(b."impacts"))
                       AS u("document", "impact")
        GROUP BY b."term_id", b."first_document"
    ), emptied AS (
        DELETE FROM "search_blocks" x USING kept k
        WHERE x."term_id" = k."term_id" AND x."first_document" = k."first_document" AND k."documents" IS NULL
    ), rewritten AS (
        UPDATE "search_blocks" x SET "documents" = k."documents", "impacts" = k."impacts"
        FROM kept k
        WHERE x."term_id" = k."term_id" AND x."first_document" = k."first_document" AND k."documents" IS NOT NULL
    )
    SELECT count(*), count(*) FILTER (WHERE "document" % 2 = 1) INTO removed_count, free_removed FROM removed;
    PERFORM search_catalogue_count(-removed_count, -free_removed);
END;
$$;

-- Indexes every pending image (see search_bulk_index), a chunk at a time so that each chunk's postings sort in
-- memory; answers how many there were.
CREATE FUNCTION "search_index_flush"() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    chunk UUID[];
    indexed INTEGER := 0;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('imagehub.search_index_flush'));
    PERFORM set_config('work_mem', '64MB', true);
    LOOP
        WITH taken AS (
            DELETE FROM "search_index_pending"
            WHERE "image_id" IN (SELECT "image_id" FROM "search_index_pending" LIMIT 20000)
            RETURNING "image_id"
        )
        SELECT array_agg("image_id") INTO chunk FROM taken;
        EXIT WHEN chunk IS NULL;
        PERFORM search_index_add(chunk);
        indexed := indexed + cardinality(chunk);
    END LOOP;
    RETURN indexed;
END;
$$;

-- With `imagehub.search_index` set to 'deferred' in the inserting transaction (a seed), new images wait in
-- search_index_pending; otherwise they are searchable as soon as the statement that adds them commits.
CREATE FUNCTION "search_index_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER "search_index_inserted"
    AFTER INSERT ON "images" REFERENCING NEW TABLE AS "inserted"
    FOR EACH STATEMENT EXECUTE FUNCTION "search_index_inserted"();

-- New words, a new free flag or a new source: indexed again, under a new document number. A new date or
-- popularity changes no posting: sorts read them from images.
CREATE FUNCTION "search_index_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM "search_index_pending" WHERE "image_id" = NEW."id") THEN
        RETURN NULL;
    END IF;
    IF OLD."search_document" IS DISTINCT FROM NEW."search_document" OR OLD."free" <> NEW."free"
        OR OLD."source" <> NEW."source" THEN
        PERFORM search_index_remove(ARRAY[OLD."id"], ARRAY[OLD."search_document"]);
        PERFORM search_index_add(ARRAY[NEW."id"]);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "search_index_updated"
    AFTER UPDATE OF "titles", "tags", "free", "source" ON "images"
    FOR EACH ROW EXECUTE FUNCTION "search_index_updated"();

-- A statement's deleted images leave the index together (deleting half a catalogue rewrites each block once).
CREATE FUNCTION "search_index_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM "search_index_pending" WHERE "image_id" IN (SELECT "id" FROM "deleted");
    PERFORM search_index_remove(ARRAY(SELECT "id" FROM "deleted" WHERE "source" = 'catalogue' ORDER BY "id"),
                                ARRAY(SELECT "search_document" FROM "deleted" WHERE "source" = 'catalogue' ORDER BY "id"));
    RETURN NULL;
END;
$$;

CREATE TRIGGER "search_index_deleted"
    AFTER DELETE ON "images" REFERENCING OLD TABLE AS "deleted"
    FOR EACH STATEMENT EXECUTE FUNCTION "search_index_deleted"();

-- Postings written or removed, whatever wrote them, move the counter of the catalogue's changes.
CREATE TRIGGER "search_blocks_changed"
    AFTER INSERT OR UPDATE OR DELETE ON "search_blocks"
    FOR EACH STATEMENT EXECUTE FUNCTION "search_catalogue_changed"();

-- Compaction: each term's blocks written again full (a catalogue that lost many images keeps half-empty
-- blocks until then; VACUUM then gives their pages back for reuse, VACUUM FULL to the file system).
CREATE FUNCTION "search_index_compact"() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    rewritten INTEGER;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('imagehub.search_index'));
    WITH sparse AS (
        SELECT "term_id" FROM "search_blocks" GROUP BY "term_id"
        HAVING count(*) > ceil(sum(length("impacts")) / 128.0)
    ), taken AS (
        DELETE FROM "search_blocks" b USING sparse s WHERE b."term_id" = s."term_id" RETURNING b.*
    ), numbered AS (
        SELECT taken."term_id", u."document", u."impact",
               (row_number() OVER (PARTITION BY taken."term_id" ORDER BY u."document") - 1) / 128 AS "block"
        FROM taken, unnest(search_block_documents(taken."documents"), search_block_impacts(taken."impacts"))
                    AS u("document", "impact")
    ), written AS (
        INSERT INTO "search_blocks" ("term_id", "first_document", "last_document", "max_impact", "documents", "impacts")
        SELECT "term_id", min("document"), max("document"), max("impact"),
               string_agg(int4send("document"), ''::bytea ORDER BY "document"),
               string_agg(search_impact_byte("impact"), ''::bytea ORDER BY "document")
        FROM numbered GROUP BY "term_id", "block"
        RETURNING "term_id"
    )
    UPDATE "search_terms" t SET "version" = t."version" + 1
    WHERE t."id" IN (SELECT "term_id" FROM written);
    GET DIAGNOSTICS rewritten = ROW_COUNT;
    RETURN rewritten;
END;
$$;

-- The catalogue already there, indexed in chunks.
INSERT INTO "search_index_pending" ("image_id") SELECT "id" FROM "images" WHERE "source" = 'catalogue'
ON CONFLICT DO NOTHING;
SELECT search_index_flush();
