-- A reused search answer shows each image's titles and flags: a new title with the same words (case,
-- punctuation) or a new validate flag indexes nothing again, yet the answer must be renewed.
CREATE TRIGGER "search_answer_fields_changed"
    AFTER UPDATE OF "titles", "validate" ON "images"
    FOR EACH ROW
    WHEN ((OLD."source" = 'catalogue' OR NEW."source" = 'catalogue')
          AND (OLD."titles" IS DISTINCT FROM NEW."titles" OR OLD."validate" IS DISTINCT FROM NEW."validate"))
    EXECUTE FUNCTION "search_catalogue_changed"();
