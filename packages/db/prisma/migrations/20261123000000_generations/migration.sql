-- CreateEnum
CREATE TYPE "GenerationMode" AS ENUM ('simple', 'advanced');

-- CreateEnum
CREATE TYPE "ProcessMode" AS ENUM ('fast', 'relax');

-- CreateTable
CREATE TABLE "generations" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "api_key_id" UUID,
    "name" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "additional_prompt" TEXT,
    "mode" "GenerationMode" NOT NULL,
    "optimize_prompt" BOOLEAN NOT NULL DEFAULT false,
    "optimized_prompt" TEXT,
    "params" JSONB NOT NULL DEFAULT '[]',
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "meta_data" JSONB NOT NULL DEFAULT '{}',
    "process_mode" "ProcessMode" NOT NULL,
    "status" SMALLINT NOT NULL DEFAULT 0,
    "failure_reason" TEXT,
    "credit_held" BOOLEAN NOT NULL DEFAULT false,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "worker_token" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "generations_pkey" PRIMARY KEY ("id"),
    -- The spec's states: 0 Create, 1 Pending, 2 Processing, 3 Done, 4 Error.
    CONSTRAINT "generations_status_check" CHECK ("status" BETWEEN 0 AND 4)
);

-- CreateIndex
CREATE INDEX "generations_account_id_created_at_id_idx" ON "generations"("account_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "generations_tags_idx" ON "generations" USING GIN ("tags");

-- AddForeignKey
ALTER TABLE "generations" ADD CONSTRAINT "generations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "generations" ADD CONSTRAINT "generations_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AlterTable: a generated image belongs to its generation and to the account that made it.
ALTER TABLE "images" ADD COLUMN "generation_id" UUID,
ADD COLUMN "generation_index" SMALLINT,
ADD COLUMN "owner_account_id" UUID;

-- CreateIndex: one row per image of a generation, however many times a worker retries it.
CREATE UNIQUE INDEX "images_generation_id_generation_index_key" ON "images"("generation_id", "generation_index");

-- CreateIndex
CREATE INDEX "images_owner_account_id_idx" ON "images"("owner_account_id");

-- AddForeignKey
ALTER TABLE "images" ADD CONSTRAINT "images_generation_id_fkey" FOREIGN KEY ("generation_id") REFERENCES "generations"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "images" ADD CONSTRAINT "images_owner_account_id_fkey" FOREIGN KEY ("owner_account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable: generation events, written in the transaction of the change they report; the webhook relay
-- delivers them and marks them relayed.
CREATE TABLE "outbox_events" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "generation_id" UUID,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "relayed_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "outbox_events_generation_id_created_at_idx" ON "outbox_events"("generation_id", "created_at");

-- CreateIndex: what the relay still has to move.
CREATE INDEX "outbox_events_unrelayed_idx" ON "outbox_events"("created_at") WHERE "relayed_at" IS NULL;

-- Generated images are private to their account: their words must not reach the spelling dictionary.
CREATE OR REPLACE FUNCTION "search_words_collect_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "search_words" ("word")
    SELECT DISTINCT word FROM "inserted", imagehub_words("inserted"."titles", "inserted"."tags") AS word
    WHERE "inserted"."source" = 'catalogue'
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION "search_words_collect_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW."source" = 'catalogue' THEN
        INSERT INTO "search_words" ("word") SELECT imagehub_words(NEW."titles", NEW."tags") ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END;
$$;
