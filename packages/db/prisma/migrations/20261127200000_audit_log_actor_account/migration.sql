-- Who made a change, as an account: the session or API key named in "actor" ends, its account stays.
ALTER TABLE "audit_log" ADD COLUMN "actor_account_id" UUID;

ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_actor_account_id_fkey" FOREIGN KEY ("actor_account_id") REFERENCES "accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;
