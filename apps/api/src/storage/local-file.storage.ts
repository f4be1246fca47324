import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { assertValidKey, type ImageStorage } from "./image-storage.js";

/** Files under a folder. Writes go to a temporary file renamed into place, so readers see all or nothing. */
export class LocalFileStorage implements ImageStorage {
  constructor(private readonly root: string) {}

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, path);
  }

  async presignedUrl(): Promise<undefined> {
    return undefined;
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    return join(this.root, key);
  }
}
