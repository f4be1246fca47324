-- API keys: a scope (a read-only key searches, displays and lists, and may not spend or change) and an
-- optional expiry.
ALTER TABLE "api_keys" ADD COLUMN "scope" TEXT NOT NULL DEFAULT 'full';
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scope_check" CHECK ("scope" IN ('full', 'read-only'));
ALTER TABLE "api_keys" ADD COLUMN "expires_at" TIMESTAMPTZ(3);

-- An admin may disable an account: its sessions end and its keys and sign-ins are refused until enabled.
ALTER TABLE "accounts" ADD COLUMN "disabled_at" TIMESTAMPTZ(3);
-- A deleted account keeps an anonymous row: the credit ledger, append-only, still refers to its buckets.
ALTER TABLE "accounts" ADD COLUMN "deleted_at" TIMESTAMPTZ(3);

-- Sessions show where they were opened, so that an owner can tell them apart and end one.
ALTER TABLE "sessions" ADD COLUMN "user_agent" TEXT;

-- One-time links that reset a forgotten password (mailed, or issued by an admin).
ALTER TABLE "sign_in_links" DROP CONSTRAINT "sign_in_links_purpose_check";
ALTER TABLE "sign_in_links" ADD CONSTRAINT "sign_in_links_purpose_check"
  CHECK ("purpose" IN ('set-password', 'sign-in', 'reset-password'));
