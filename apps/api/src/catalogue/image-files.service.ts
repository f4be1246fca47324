import { createHash } from "node:crypto";
import { Injectable } from "@nestjs/common";
import { NotFound } from "../common/domain-errors.js";
import { renderBuiltinImage } from "../engines/builtin.engine.js";
import { CatalogueRepository, type ImageRecord, type StoredRendition } from "./catalogue.repository.js";
import { ImageFilesRepository } from "./image-files.repository.js";
import { RENDITIONS, type RenditionName } from "./renditions.js";

/** The clean original, or one of the renditions derived from it. */
export type ImageFileName = "original" | RenditionName;

export interface ImageFile extends StoredRendition {
  bytes: Buffer;
}

/**
 * Every file of an image is produced once (the original rendered by the built-in engine from the title,
 * renditions derived from it), stored, and recorded with its ETag; later requests read the stored file.
 */
@Injectable()
export class ImageFilesService {
  /** Files being produced in this process, so that simultaneous first requests render once. */
  private readonly producing = new Map<string, Promise<ImageFile>>();

  constructor(
    private readonly catalogue: CatalogueRepository,
    private readonly files: ImageFilesRepository,
  ) {}

  /** Where the file is and its ETag, producing it first if needed (no read when it is recorded). */
  async locate(image: ImageRecord, name: ImageFileName): Promise<StoredRendition> {
    return image.renditions[name] ?? (await this.produce(image, name));
  }

  async read(image: ImageRecord, name: ImageFileName): Promise<ImageFile> {
    const recorded = image.renditions[name];
    if (recorded) {
      const bytes = await this.files.read(recorded.key);
      // A recorded file that storage lost (a wiped bucket) is produced again rather than failing.
      if (bytes) return { ...recorded, bytes };
    }
    return this.produce(image, name);
  }

  presignedUrl(key: string, ttlSeconds: number, downloadName?: string): Promise<string | undefined> {
    return this.files.presignedUrl(key, ttlSeconds, downloadName);
  }

  private produce(image: ImageRecord, name: ImageFileName): Promise<ImageFile> {
    const id = `${image.id}/${name}`;
    const running = this.producing.get(id);
    if (running) return running;
    const production = this.render(image, name).finally(() => this.producing.delete(id));
    this.producing.set(id, production);
    return production;
  }

  private async render(image: ImageRecord, name: ImageFileName): Promise<ImageFile> {
    if (name === "original" && image.source === "generation") {
      // Its engine's images cannot be drawn again here: the generation was deleted, or storage lost it.
      throw new NotFound(`image ${image.id} is no longer stored`);
    }
    const bytes =
      name === "original"
        ? await renderBuiltinImage({
            prompt: titleOf(image),
            seed: image.seed,
            width: image.width,
            height: image.height,
          })
        : await RENDITIONS[name]((await this.read(image, "original")).bytes);
    const stored = { key: this.files.keyOf(image.id, name), etag: etagOf(bytes) };
    await this.files.write(stored.key, bytes);
    await this.catalogue.recordRendition(image.id, name, stored);
    // The caller's record may not be the cached one: later steps of this request must see the file too.
    image.renditions[name] = stored;
    return { ...stored, bytes };
  }
}

/** A stored file's strong ETag: its bytes' digest, so that the same bytes always answer the same tag. */
export function etagOf(bytes: Buffer): string {
  return `"${createHash("sha256").update(bytes).digest("base64url")}"`;
}

function titleOf(image: ImageRecord): string {
  return image.titles.en ?? Object.values(image.titles)[0] ?? "";
}
