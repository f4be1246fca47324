-- An insert into images ran three statement triggers (the change counter, the index, the spelling
-- dictionary's words), each scanning the statement's rows for a catalogue image. A generation's images (four
-- a generation, each its own insert) hold none, and those three calls were most of what their inserts cost
-- in triggers. One trigger now looks once, and does the three things only when there is a catalogue image.
DROP TRIGGER "search_catalogue_images_inserted" ON "images";
DROP TRIGGER "search_index_inserted" ON "images";
DROP TRIGGER "search_words_collect_inserted" ON "images";
DROP FUNCTION "search_index_inserted"();
DROP FUNCTION "search_words_collect_inserted"();

-- With `imagehub.search_index` set to 'deferred' in the inserting transaction (a seed), new images wait in
-- search_index_pending; otherwise they are searchable as soon as the statement that adds them commits. The
-- words' statement is planned for millions of rows: JIT would compile it on every batch.
CREATE FUNCTION "catalogue_images_inserted"() RETURNS trigger LANGUAGE plpgsql
SET jit = off AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM "inserted" WHERE "source" = 'catalogue') THEN
        RETURN NULL;
    END IF;
    PERFORM nextval('search_catalogue_changes');
    IF current_setting('imagehub.search_index', true) = 'deferred' THEN
        INSERT INTO "search_index_pending" ("image_id")
        SELECT "id" FROM "inserted" WHERE "source" = 'catalogue'
        ON CONFLICT DO NOTHING;
    ELSE
        PERFORM search_index_add(ARRAY(SELECT "id" FROM "inserted" WHERE "source" = 'catalogue'));
    END IF;
    INSERT INTO "search_words" ("word")
    SELECT n.word FROM (
        SELECT DISTINCT word FROM "inserted", imagehub_words("inserted"."titles", "inserted"."tags") AS word
        WHERE "inserted"."source" = 'catalogue'
    ) n
    WHERE NOT EXISTS (SELECT FROM "search_words" s WHERE s."word" = n.word)
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "catalogue_images_inserted"
    AFTER INSERT ON "images" REFERENCING NEW TABLE AS "inserted"
    FOR EACH STATEMENT EXECUTE FUNCTION "catalogue_images_inserted"();
