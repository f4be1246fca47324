-- Ranking several words finds the images holding all of them through an index of each image's terms, when
-- there are few: intersecting the words' lists there costs a few nanoseconds per posting, where walking them
-- in weight order costs a microsecond or more per posting read. One posting per image stands for it (the one
-- of its first term), so that each image is indexed once.

-- Written row by row (no pending list): a search reads it at once, and would otherwise scan the pending
-- entries too.
CREATE INDEX "search_postings_terms_idx" ON "search_postings" USING gin ("terms") WITH (fastupdate = off)
    WHERE "term_id" = "terms"[1];

-- A fixed sample of about one image in 256 (by the last byte of its id), read whole and index-only to
-- estimate how many images hold all the words before choosing how to find them.
CREATE INDEX "search_postings_sample_idx" ON "search_postings" ("term_id") INCLUDE ("terms")
    WHERE "term_id" = "terms"[1] AND get_byte(uuid_send("image_id"), 15) = 0;
