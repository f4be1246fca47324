-- Catalogue images loaded from an operator's manifest keep the manifest's id, so that loading it again finds
-- them, and what their original was made from (its source file's sha256, or its URL), so that an unchanged
-- line is not fetched or converted again.
ALTER TABLE "images" ADD COLUMN "external_id" TEXT;
ALTER TABLE "images" ADD COLUMN "external_source" TEXT;
CREATE UNIQUE INDEX "images_external_id_key" ON "images"("external_id");

-- Stored files that no image refers to: written before the transaction that records their image (which
-- removes them from here), or replaced by a newer file in the transaction that records the newer one. A
-- crash between the two steps leaves them here, and the next import deletes them from storage.
CREATE TABLE "unreferenced_image_files" (
    "key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "unreferenced_image_files_pkey" PRIMARY KEY ("key")
);
