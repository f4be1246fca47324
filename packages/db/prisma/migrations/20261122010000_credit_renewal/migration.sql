-- AlterTable
ALTER TABLE "credit_buckets" ADD COLUMN "renews_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "credit_buckets_renews_at_idx" ON "credit_buckets"("renews_at");
