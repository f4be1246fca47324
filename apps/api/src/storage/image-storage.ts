export interface ImageStorage {
  /** The object's bytes, or undefined when nothing is stored under that key. */
  get(key: string): Promise<Buffer | undefined>;
  /** Stores bytes under key (overwrites). Readers never see a partly written object. */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /**
   * A URL a client can fetch directly for ttlSeconds, or undefined when this storage has none (local
   * files: the API then signs its own links). downloadName makes it an attachment of that name.
   */
  presignedUrl(key: string, ttlSeconds: number, downloadName?: string): Promise<string | undefined>;
}

export const IMAGE_STORAGE = Symbol("ImageStorage");

const KEY = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** Keys are relative paths of safe characters: no traversal out of the folder or bucket prefix. */
export function assertValidKey(key: string): void {
  if (!KEY.test(key) || key.split("/").some((segment) => segment === "." || segment === "..")) {
    throw new Error(`invalid storage key "${key}"`);
  }
}
