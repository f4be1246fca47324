-- Only catalogue images are searched. An insert without any (a generation's images, four per generation) now
-- leaves the index alone: it took the index's lock until its commit, so that generations waited on each
-- other and on a catalogue import, and ran the whole indexing statement on nothing.
CREATE OR REPLACE FUNCTION "search_index_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM "inserted" WHERE "source" = 'catalogue') THEN
        RETURN NULL;
    END IF;
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
