-- CreateEnum
CREATE TYPE "Plan" AS ENUM ('standard', 'dedicated');

-- CreateEnum
CREATE TYPE "CreditBucketType" AS ENUM ('global', 'f_images', 'f_images_print', 'f_images_print_fast', 'f_images_packImage', 'f_images_upscaleHD', 'f_images_upscaleUHD', 'f_websites', 'f_queues');

-- CreateEnum
CREATE TYPE "CreditEntryReason" AS ENUM ('grant', 'purchase', 'generation', 'refund', 'renewal', 'adjustment');

-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "plan" "Plan" NOT NULL DEFAULT 'standard',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credit_buckets" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "type" "CreditBucketType" NOT NULL,
    "credit_total" INTEGER NOT NULL DEFAULT 0,
    "unlimited" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_buckets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credit_ledger" (
    "id" BIGSERIAL NOT NULL,
    "bucket_id" UUID NOT NULL,
    "amount" INTEGER NOT NULL,
    "reason" "CreditEntryReason" NOT NULL,
    "reference" TEXT,
    "actor" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_ledger_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_log" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "accounts_email_key" ON "accounts"("email");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_account_id_idx" ON "api_keys"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "credit_buckets_account_id_type_key" ON "credit_buckets"("account_id", "type");

-- CreateIndex
CREATE INDEX "credit_ledger_bucket_id_idx" ON "credit_ledger"("bucket_id");

-- CreateIndex
CREATE INDEX "audit_log_account_id_created_at_idx" ON "audit_log"("account_id", "created_at");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credit_buckets" ADD CONSTRAINT "credit_buckets_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_bucket_id_fkey" FOREIGN KEY ("bucket_id") REFERENCES "credit_buckets"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The ledger is the record of every credit movement: corrections are new entries, never edits.
CREATE FUNCTION "credit_ledger_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'credit_ledger is append-only (% refused)', TG_OP;
END;
$$;

CREATE TRIGGER "credit_ledger_append_only"
    BEFORE UPDATE OR DELETE ON "credit_ledger"
    FOR EACH ROW EXECUTE FUNCTION "credit_ledger_append_only"();
