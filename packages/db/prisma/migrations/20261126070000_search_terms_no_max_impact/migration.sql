-- search_terms.max_impact was kept by every indexing write but no search reads it any more (ranking walks the
-- impact-ordered postings instead): indexing stops maintaining it, and the column goes.
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
        SELECT "term_id", count(*) AS "documents", count(*) FILTER (WHERE "free") AS "free_documents"
        FROM postings GROUP BY "term_id"
        UNION ALL
        SELECT (SELECT "id" FROM "search_terms" WHERE "term" = ''), count(*), count(*) FILTER (WHERE "free")
        FROM documents
    )
    UPDATE "search_terms" t
    SET "documents" = t."documents" + c."documents",
        "free_documents" = t."free_documents" + c."free_documents"
    FROM counts c
    WHERE t."id" = c."term_id";
END;
$$;

ALTER TABLE "search_terms" DROP COLUMN "max_impact";
