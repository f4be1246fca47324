-- Counters of the changes that can alter a search's answer, so that an answer reused by the API stands
-- while they have not moved since it was computed. Sequences take no lock and ignore rollbacks: a change
-- rolled back only costs one renewal.
-- search_catalogue_changes: catalogue images added, removed or indexed again (words, free flag, source, a
-- seed's flush), or given a new date. search_popularity_changes: a catalogue image's popularity (purchases),
-- which only the `popular` sort reads.
CREATE SEQUENCE "search_catalogue_changes";
CREATE SEQUENCE "search_popularity_changes";

CREATE FUNCTION "search_catalogue_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM nextval('search_catalogue_changes');
    RETURN NULL;
END;
$$;

-- Postings written or removed, whatever wrote them (the indexing triggers, a seed's flush).
CREATE TRIGGER "search_postings_changed"
    AFTER INSERT OR DELETE ON "search_postings"
    FOR EACH STATEMENT EXECUTE FUNCTION "search_catalogue_changed"();

-- Catalogue images listed without keywords as soon as they are written (a seed indexes them later).
CREATE FUNCTION "search_catalogue_images_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM "changed" WHERE "source" = 'catalogue') THEN
        PERFORM nextval('search_catalogue_changes');
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "search_catalogue_images_inserted"
    AFTER INSERT ON "images" REFERENCING NEW TABLE AS "changed"
    FOR EACH STATEMENT EXECUTE FUNCTION "search_catalogue_images_changed"();

CREATE TRIGGER "search_catalogue_images_deleted"
    AFTER DELETE ON "images" REFERENCING OLD TABLE AS "changed"
    FOR EACH STATEMENT EXECUTE FUNCTION "search_catalogue_images_changed"();

-- A new date or popularity moves the image in the sorts without writing or removing postings.
CREATE FUNCTION "search_order_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD."created_at" IS DISTINCT FROM NEW."created_at" THEN
        PERFORM nextval('search_catalogue_changes');
    END IF;
    IF OLD."popularity" IS DISTINCT FROM NEW."popularity" THEN
        PERFORM nextval('search_popularity_changes');
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "search_order_changed"
    AFTER UPDATE OF "popularity", "created_at" ON "images"
    FOR EACH ROW WHEN (OLD."source" = 'catalogue' OR NEW."source" = 'catalogue')
    EXECUTE FUNCTION "search_order_changed"();
