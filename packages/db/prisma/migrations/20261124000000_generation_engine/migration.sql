-- AlterTable: the engine and model that drew a generation (or failed to), and how far a running one is
-- by its engine's own measure (engines that report it), in percent.
ALTER TABLE "generations" ADD COLUMN "engine" TEXT,
ADD COLUMN "engine_model" TEXT,
ADD COLUMN "progress" SMALLINT,
ADD CONSTRAINT "generations_progress_check" CHECK ("progress" BETWEEN 0 AND 100);
