-- Sign-ins are throttled by growing delays kept in Redis per account and per address, never by a lock an
-- attacker could trigger: the account's own count of failures and lock are no longer read or written.
ALTER TABLE "accounts" DROP COLUMN "failed_sign_ins";
ALTER TABLE "accounts" DROP COLUMN "locked_until";
