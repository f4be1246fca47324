import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { LocalStorageConfig } from "../common/config.js";
import { assertValidKey, type ImageStorage } from "./image-storage.js";

/** Errors of a read where no file is: none at all, a folder, or a file standing where a folder should be. */
const NOTHING_STORED = new Set(["ENOENT", "EISDIR", "ENOTDIR"]);

/** Files under a folder (created on the first write). */
export class LocalFileStorage implements ImageStorage {
  constructor(private readonly config: LocalStorageConfig) {}

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if (NOTHING_STORED.has((error as NodeJS.ErrnoException).code ?? "")) return undefined;
      throw error;
    }
  }

  /** The content type is not kept: the API sets it on the files it serves. */
  async put(key: string, bytes: Buffer, _contentType: string): Promise<void> {
    const path = this.pathOf(key);
    // rename() replaces the file in one step, so readers get the old bytes or the new ones, never a part.
    // The temporary file shares the folder (rename does not cross file systems) and has a `~`, which no key
    // can contain, so it never stands for a key; a unique name keeps concurrent writers apart.
    const temporary = `${path}~${randomUUID()}`;
    try {
      await writeFile(temporary, bytes).catch(async (error: NodeJS.ErrnoException) => {
        // The folder is made when a write finds none rather than checked before each write: most keys'
        // folders exist already (a generation's four images share one).
        if (error.code !== "ENOENT") throw error;
        await mkdir(dirname(path), { recursive: true });
        await writeFile(temporary, bytes);
      });
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async presignedUrl(key: string, _ttlSeconds: number, _downloadName?: string): Promise<undefined> {
    assertValidKey(key);
    return undefined;
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    return join(this.config.dir, key);
  }
}
