-- Only catalogue images are searched: a generation's images (four per generation) no longer compute a search
-- document nobody reads (about 0.3 ms of PostgreSQL an image). PostgreSQL 15 cannot change a generated
-- column's expression, so the column is made again: the table is rewritten once, catalogue images' documents
-- computed as before. The index's triggers already leave other images alone (search_index_catalogue_only).
ALTER TABLE "images" DROP COLUMN "search_document";
ALTER TABLE "images" ADD COLUMN "search_document" tsvector
    GENERATED ALWAYS AS (CASE WHEN "source" = 'catalogue' THEN imagehub_search_document("titles", "tags") END) STORED;
