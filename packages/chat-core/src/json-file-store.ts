import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

type Document = Record<string, Record<string, unknown>>;

/**
 * A bot's durable state (connected teams, installations) in one JSON file. Every change is written to a
 * temporary file then renamed over the old one, so a crash leaves either the old state or the new, never
 * half of one; changes are written one at a time, in order. Made for one bot process: several processes
 * sharing a file would overwrite one another's changes.
 */
export class JsonFileStore {
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly path: string,
    private readonly document: Document,
  ) {}

  static async open(path: string): Promise<JsonFileStore> {
    await mkdir(dirname(path), { recursive: true });
    const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return "{}";
      throw error;
    });
    return new JsonFileStore(path, JSON.parse(text) as Document);
  }

  /** A named set of records, each under its own key. */
  collection<T>(name: string): StoreCollection<T> {
    if (!Object.hasOwn(this.document, name)) this.document[name] = {};
    const records = this.document[name] as Record<string, T>;
    return {
      // Own keys only: a key such as `constructor` must not find Object.prototype's.
      get: (key) => (Object.hasOwn(records, key) ? records[key] : undefined),
      values: () => Object.values(records),
      set: (key, value) => {
        records[key] = value;
        return this.save();
      },
      delete: (key) => {
        delete records[key];
        return this.save();
      },
    };
  }

  private save(): Promise<void> {
    const snapshot = JSON.stringify(this.document, null, 2);
    const next = this.writing.then(async () => {
      const temporary = `${this.path}.${process.pid}.tmp`;
      await writeFile(temporary, snapshot, { mode: 0o600 });
      await rename(temporary, this.path);
    });
    // One failed write must not block the ones after it; its caller still sees the failure.
    this.writing = next.catch(() => {});
    return next;
  }
}

export interface StoreCollection<T> {
  get(key: string): T | undefined;
  values(): T[];
  set(key: string, value: T): Promise<void>;
  delete(key: string): Promise<void>;
}
