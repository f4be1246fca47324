import { createHash } from "node:crypto";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CatalogueManifestLine } from "@imagehub/domain";
import type { ImageStorage } from "../../storage/image-storage.js";
import type { CatalogueRepository } from "../catalogue.repository.js";

const PAGE = 2000;

export interface ExportOptions {
  outPath: string;
  /** Where the stored originals are written (`file` in their lines); without it the manifest is text-only. */
  imagesDir: string | undefined;
}

/**
 * Writes every catalogue image as a manifest line, in the format `catalogue import` reads: an image loaded
 * from a manifest keeps its `externalId`, any other (seeded) is named by its id. Pictures drawn from the title
 * have no file; stored originals are written under `imagesDir` when one is given, as they are stored.
 */
export class CatalogueExportService {
  constructor(
    private readonly catalogue: CatalogueRepository,
    private readonly storage: ImageStorage,
  ) {}

  async export(options: ExportOptions): Promise<{ images: number; files: number }> {
    if (options.imagesDir) await mkdir(options.imagesDir, { recursive: true });
    const out = createWriteStream(options.outPath);
    let images = 0;
    let files = 0;
    let after: string | undefined;
    try {
      for (;;) {
        const page = await this.catalogue.catalogueImagesAfter(after, PAGE);
        if (page.length === 0) break;
        for (const image of page) {
          const externalId = image.externalId ?? image.id;
          const line: CatalogueManifestLine = {
            externalId,
            titles: image.titles,
            tags: image.tags,
            free: image.free,
            price: image.price,
          };
          const original = image.externalSource !== null ? image.renditions.original : undefined;
          if (options.imagesDir && original) {
            const bytes = await this.storage.get(original.key);
            if (!bytes)
              throw new Error(`the stored original of image ${image.id} (${original.key}) is missing`);
            line.file = fileNameOf(externalId);
            await writeFile(join(options.imagesDir, line.file), bytes);
            files++;
          }
          if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, "drain");
        }
        images += page.length;
        after = page.at(-1)?.id;
      }
    } finally {
      out.end();
      await once(out, "close");
    }
    return { images, files };
  }
}

/** A file name for any manifest id: its safe characters, and a digest that keeps two ids apart. */
function fileNameOf(externalId: string): string {
  const safe = externalId
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/^[.]+/, "_")
    .slice(0, 80);
  return `${safe}-${createHash("sha256").update(externalId).digest("hex").slice(0, 12)}.jpg`;
}
