-- A webhook's health is kept by time, not by a count of failed attempts: the start of the current run of
-- failures (NULL after a success). It is disabled once the run has lasted WEBHOOK_DISABLE_AFTER_SECONDS.
ALTER TABLE "webhooks" ADD COLUMN "failing_since" TIMESTAMPTZ(3);
ALTER TABLE "webhooks" DROP COLUMN "consecutive_failures";
