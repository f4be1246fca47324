-- Catalogue search: accent folding (unaccent) and misspellings (pg_trgm, on the catalogue's words). Both
-- are trusted extensions, and PGlite has them when they are loaded (see database.ts).
CREATE EXTENSION IF NOT EXISTS "pg_trgm";
CREATE EXTENSION IF NOT EXISTS "unaccent";

-- Text search configurations that fold accents before stemming, so "foret" finds "forêt".
CREATE TEXT SEARCH CONFIGURATION "imagehub_en" (COPY = english);
ALTER TEXT SEARCH CONFIGURATION "imagehub_en" ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem;
CREATE TEXT SEARCH CONFIGURATION "imagehub_fr" (COPY = french);
ALTER TEXT SEARCH CONFIGURATION "imagehub_fr" ALTER MAPPING FOR hword, hword_part, word WITH unaccent, french_stem;

-- Generated columns need immutable expressions; these functions are, for fixed configurations and
-- dictionary, though PostgreSQL cannot prove it for to_tsvector and unaccent on their own.
CREATE FUNCTION "imagehub_search_document"(titles JSONB, tags TEXT[]) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector('imagehub_en'::regconfig, coalesce(titles->>'en', '')), 'A')
        || setweight(to_tsvector('imagehub_fr'::regconfig, coalesce(titles->>'fr', '')), 'A')
        || setweight(to_tsvector('imagehub_en'::regconfig, array_to_string(tags, ' ')), 'B')
$$;

CREATE FUNCTION "imagehub_fold"(input TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
    SELECT lower(public.unaccent('public.unaccent'::regdictionary, input))
$$;

-- The distinct words of titles and tags, lower-case without accents: what misspellings are matched against.
CREATE FUNCTION "imagehub_words"(titles JSONB, tags TEXT[]) RETURNS SETOF TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT DISTINCT word
    FROM regexp_split_to_table(
        imagehub_fold(concat_ws(' ', titles->>'en', titles->>'fr', array_to_string(tags, ' '))), '[^[:alnum:]]+') AS word
    WHERE length(word) >= 3
$$;

-- CreateEnum
CREATE TYPE "ImageSource" AS ENUM ('catalogue', 'generation');

-- CreateTable
CREATE TABLE "images" (
    "id" UUID NOT NULL,
    "source" "ImageSource" NOT NULL DEFAULT 'catalogue',
    "titles" JSONB NOT NULL DEFAULT '{}',
    "tags" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "free" BOOLEAN NOT NULL DEFAULT false,
    "validate" BOOLEAN NOT NULL DEFAULT true,
    "price" INTEGER NOT NULL DEFAULT 1,
    "popularity" INTEGER NOT NULL DEFAULT 0,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "seed" INTEGER NOT NULL DEFAULT 0,
    "renditions" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "search_document" tsvector GENERATED ALWAYS AS (imagehub_search_document("titles", "tags")) STORED,

    CONSTRAINT "images_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "images_price_check" CHECK ("price" >= 0)
);

-- CreateTable
CREATE TABLE "search_words" (
    "word" TEXT NOT NULL,

    CONSTRAINT "search_words_pkey" PRIMARY KEY ("word")
);

-- CreateTable
CREATE TABLE "purchases" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "image_id" UUID NOT NULL,
    "price" INTEGER NOT NULL,
    "downloaded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "purchases_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "images_created_at_id_idx" ON "images"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "images_popularity_id_idx" ON "images"("popularity" DESC, "id" DESC);

-- Search indexes (not expressible in schema.prisma)
CREATE INDEX "images_search_document_idx" ON "images" USING GIN ("search_document");
CREATE INDEX "images_free_created_at_id_idx" ON "images"("created_at" DESC, "id" DESC) WHERE "free";

-- Trigram index of the words (thousands of rows, not millions).
CREATE INDEX "search_words_word_idx" ON "search_words" USING GIN ("word" gin_trgm_ops);

-- Every word of the catalogue lands in search_words: one statement per inserting statement (a batch of a
-- seed is one INSERT), and one per row when titles or tags change.
CREATE FUNCTION "search_words_collect_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "search_words" ("word")
    SELECT DISTINCT word FROM "inserted", imagehub_words("inserted"."titles", "inserted"."tags") AS word
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "search_words_collect_inserted"
    AFTER INSERT ON "images" REFERENCING NEW TABLE AS "inserted"
    FOR EACH STATEMENT EXECUTE FUNCTION "search_words_collect_inserted"();

CREATE FUNCTION "search_words_collect_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "search_words" ("word") SELECT imagehub_words(NEW."titles", NEW."tags") ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "search_words_collect_updated"
    AFTER UPDATE OF "titles", "tags" ON "images"
    FOR EACH ROW EXECUTE FUNCTION "search_words_collect_updated"();

-- CreateIndex
CREATE UNIQUE INDEX "purchases_account_id_image_id_key" ON "purchases"("account_id", "image_id");

-- CreateIndex
CREATE INDEX "purchases_account_id_downloaded_at_idx" ON "purchases"("account_id", "downloaded_at" DESC);

-- AddForeignKey
ALTER TABLE "purchases" ADD CONSTRAINT "purchases_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "purchases" ADD CONSTRAINT "purchases_image_id_fkey" FOREIGN KEY ("image_id") REFERENCES "images"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Bucket balances, kept by the database from the ledger so that a constraint can guard them.
ALTER TABLE "credit_buckets" ADD COLUMN "balance" INTEGER NOT NULL DEFAULT 0;
UPDATE "credit_buckets" SET "balance" = coalesce((SELECT sum("amount") FROM "credit_ledger" WHERE "bucket_id" = "credit_buckets"."id"), 0);
ALTER TABLE "credit_buckets" ADD CONSTRAINT "credit_buckets_balance_check" CHECK ("unlimited" OR "balance" >= 0);

CREATE FUNCTION "credit_ledger_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE "credit_buckets" SET "balance" = "balance" + NEW."amount" WHERE "id" = NEW."bucket_id";
    RETURN NEW;
END;
$$;

CREATE TRIGGER "credit_ledger_apply"
    AFTER INSERT ON "credit_ledger"
    FOR EACH ROW EXECUTE FUNCTION "credit_ledger_apply"();
