-- The orders a catalogue is listed and walked in (newest, oldest, popular; all or free images) are indexed
-- over catalogue images only: a generation's images (four per generation) no longer update two of them, and
-- a page without keywords reads its ids from the index alone (an index-only scan), so a deep page (offset
-- 10,000) skips its offset there instead of reading every image row before it.
DROP INDEX "images_created_at_id_idx";
DROP INDEX "images_popularity_id_idx";
DROP INDEX "images_free_created_at_id_idx";
DROP INDEX "images_free_popularity_id_idx";
CREATE INDEX "images_catalogue_created_at_id_idx" ON "images" ("created_at" DESC, "id" DESC)
    WHERE "source" = 'catalogue';
CREATE INDEX "images_catalogue_popularity_id_idx" ON "images" ("popularity" DESC, "id" DESC)
    WHERE "source" = 'catalogue';
CREATE INDEX "images_catalogue_free_created_at_id_idx" ON "images" ("created_at" DESC, "id" DESC)
    WHERE "source" = 'catalogue' AND "free";
CREATE INDEX "images_catalogue_free_popularity_id_idx" ON "images" ("popularity" DESC, "id" DESC)
    WHERE "source" = 'catalogue' AND "free";
