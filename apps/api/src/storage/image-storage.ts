export interface ImageStorage {
  /** The object's bytes, or undefined when nothing is stored under that key. */
  get(key: string): Promise<Buffer | undefined>;
  /** Stores bytes under key (overwrites). Readers never see a partly written object. */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** Removes the object; nothing stored under the key is not an error. */
  delete(key: string): Promise<void>;
  /**
   * A URL a client can fetch directly for ttlSeconds, or undefined when this storage has none (local
   * files: the API then signs its own links). downloadName sets Content-Disposition attachment.
   */
  presignedUrl(key: string, ttlSeconds: number, downloadName?: string): Promise<string | undefined>;
}

export const IMAGE_STORAGE = Symbol("ImageStorage");

/** Segments of safe characters joined by single slashes: no leading slash, no empty segment. */
const KEY = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;
/** S3's limit; also keeps file paths well under the usual PATH_MAX. */
const MAX_KEY_LENGTH = 1024;

export class InvalidStorageKeyError extends Error {}

/**
 * Keys become file paths and object names alike, so both storages refuse the same ones: anything that could
 * leave the folder (absolute, `..`, backslashes) or that the two would not store under the same name.
 */
export function assertValidKey(key: string): void {
  if (
    key.length > MAX_KEY_LENGTH ||
    !KEY.test(key) ||
    key.split("/").some((segment) => segment === "." || segment === "..")
  ) {
    throw new InvalidStorageKeyError(`invalid storage key ${JSON.stringify(key)}`);
  }
}
