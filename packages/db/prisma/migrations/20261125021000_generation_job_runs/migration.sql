-- A generation whose job was lost or exhausted its attempts is queued again under a fresh job id, one per
-- run; and it has a bounded lifetime, counted from when its attempt was queued.
ALTER TABLE "generations" ADD COLUMN "job_run" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "generations" ADD COLUMN "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
