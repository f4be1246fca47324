/**
 * A bot's durable state, by named collections of records under keys: the connected teams, installations,
 * the status messages and their pending updates. Two implementations: PostgreSQL (PostgresStore, shared by
 * every replica) and one JSON file (JsonFileStore, a single development process).
 */
export interface BotStore {
  collection<T>(name: string): StoreCollection<T>;
  close(): Promise<void>;
}

export interface StoreCollection<T> {
  get(key: string): Promise<T | undefined>;
  values(): Promise<T[]>;
  set(key: string, value: T): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Reads a record, changes it and writes it back as one step that no other change of that record (from
   * any replica) interleaves with. `change` answers the new value, or undefined to leave the record as it
   * is; `update` answers what it wrote, or undefined.
   */
  update(key: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined>;
  /** Deletes the record if `isDone` holds for it, as one step like `update`. */
  deleteIf(key: string, isDone: (current: T) => boolean): Promise<void>;
}
