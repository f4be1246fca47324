-- AlterTable: an account's own rate limits and cap on running generations, where they differ from the
-- configured defaults (admin CLI `limits set`), e.g. {"search": 300, "active-generations": 20}.
ALTER TABLE "accounts" ADD COLUMN "limits" JSONB NOT NULL DEFAULT '{}',
ADD CONSTRAINT "accounts_limits_check" CHECK (jsonb_typeof("limits") = 'object');

-- The cap on running generations counts an account's Pending (1) and Processing (2) ones at each create.
CREATE INDEX "generations_account_id_running_idx" ON "generations"("account_id") WHERE "status" IN (1, 2);
