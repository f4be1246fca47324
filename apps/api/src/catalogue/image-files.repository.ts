import { Inject, Injectable } from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { IMAGE_STORAGE, type ImageStorage } from "../storage/image-storage.js";

const FILE_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The stored files of catalogue images, in storage under `images/<id>/<name>.jpg`. Stored files never
 * change, so the most requested ones are served from memory for good.
 */
@Injectable()
export class ImageFilesRepository {
  private readonly recentFiles = new LRUCache<string, Buffer>({
    maxSize: FILE_CACHE_BYTES,
    sizeCalculation: (bytes) => bytes.length,
  });

  constructor(@Inject(IMAGE_STORAGE) private readonly storage: ImageStorage) {}

  keyOf(imageId: string, name: string): string {
    return `images/${imageId}/${name}.jpg`;
  }

  /** The file's bytes; undefined when storage does not have it. */
  async read(key: string): Promise<Buffer | undefined> {
    // A hit is not set again: get already marks it recent, and set re-weighed it on every display.
    const remembered = this.recentFiles.get(key);
    if (remembered) return remembered;
    const bytes = await this.storage.get(key);
    if (bytes) this.recentFiles.set(key, bytes);
    return bytes;
  }

  async write(key: string, bytes: Buffer): Promise<void> {
    await this.storage.put(key, bytes, "image/jpeg");
    this.recentFiles.set(key, bytes);
  }

  presignedUrl(key: string, ttlSeconds: number, downloadName?: string): Promise<string | undefined> {
    return this.storage.presignedUrl(key, ttlSeconds, downloadName);
  }
}
