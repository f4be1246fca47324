-- Sorted keyword searches (newest, oldest, popular) order their matches in the API, by each document's date
-- and popularity, which every API process keeps (catalogue/search/sort-keys.ts): a page of a common word's
-- matches had PostgreSQL read each matching image row to sort them (130–250 ms a search on 1,000,000 images).
-- A process reads the keys of documents numbered beyond those it holds, and of the images whose keys changed
-- since it last read: a catalogue image's new date or popularity records the transaction that made it, so
-- that a reader, remembering the oldest transaction still running when it last read, misses none.
ALTER TABLE "images" ADD COLUMN "sort_keys_changed" xid8;

CREATE INDEX "images_sort_keys_changed_idx" ON "images" ("sort_keys_changed")
    WHERE "sort_keys_changed" IS NOT NULL;

CREATE FUNCTION "search_sort_keys_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW."sort_keys_changed" := pg_current_xact_id();
    RETURN NEW;
END;
$$;

CREATE TRIGGER "search_sort_keys_changed"
    BEFORE UPDATE OF "popularity", "created_at" ON "images"
    FOR EACH ROW
    WHEN (NEW."source" = 'catalogue'
          AND (OLD."popularity" IS DISTINCT FROM NEW."popularity" OR OLD."created_at" IS DISTINCT FROM NEW."created_at"))
    EXECUTE FUNCTION "search_sort_keys_changed"();
