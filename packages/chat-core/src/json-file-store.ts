import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { BotStore, StoreCollection } from "./bot-store.js";

type Document = Record<string, Record<string, unknown>>;

/**
 * A bot's durable state in one JSON file, for a single development process (PostgresStore otherwise).
 * Every change is written to a temporary file then renamed over the old one, so a crash leaves either the
 * old state or the new, never half of one; changes are written one at a time, in order. Several processes
 * sharing a file would overwrite one another's changes.
 */
export class JsonFileStore implements BotStore {
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

  collection<T>(name: string): StoreCollection<T> {
    if (!Object.hasOwn(this.document, name)) this.document[name] = {};
    const records = this.document[name] as Record<string, T>;
    // Own keys only: a key such as `constructor` must not find Object.prototype's.
    const read = (key: string) => (Object.hasOwn(records, key) ? records[key] : undefined);
    return {
      get: async (key) => read(key),
      values: async () => Object.values(records),
      set: (key, value) => {
        records[key] = value;
        return this.save();
      },
      delete: (key) => {
        delete records[key];
        return this.save();
      },
      update: async (key, change) => {
        // One process, and no await between the read and the change: nothing interleaves.
        const next = change(read(key));
        if (next === undefined) return undefined;
        records[key] = next;
        await this.save();
        return next;
      },
      deleteIf: async (key, isDone) => {
        const current = read(key);
        if (current === undefined || !isDone(current)) return;
        delete records[key];
        await this.save();
      },
    };
  }

  async close(): Promise<void> {
    await this.writing;
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
