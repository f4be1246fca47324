import type { SortKeysRow } from "./search.statements.js";

/** Bytes a document's keys take in a read: its number (int4), its date (float8, ms), its popularity (int4). */
const PACKED_KEYS_BYTES = 16;

/**
 * The sort keys of the catalogue's documents, kept in an API process so that a sorted keyword search orders
 * its matches itself (see sorter.ts): each document's date and popularity, indexed by its indexing order
 * (document number ÷ 2). Before each sorted search they are brought up to date by one read that starts after
 * the search asked: the keys of the documents numbered beyond the highest held (documents are numbered in the
 * order their transactions commit: the index's writers take turns), and of the images whose date or
 * popularity changed in a transaction still running at the previous read or started since (see the
 * search_sort_keys migration). Removed documents' keys stay unread: their numbers are never used again.
 */
export class SortKeys {
  private createdAt = new Float64Array(0);
  private popularity = new Int32Array(0);
  /** The highest document number read; -1 before the first read. */
  private readThrough = -1;
  /** The oldest transaction still running at the last read (null before the first). */
  private horizon: string | null = null;
  /** The read under way, and the one after it that the searches asking meanwhile share. */
  private reading: Promise<void> | undefined;
  private nextReading: Promise<void> | undefined;

  constructor(private readonly read: (after: number, since: string | null) => Promise<SortKeysRow>) {}

  /** Resolves once a read started after this call has been applied. */
  current(): Promise<void> {
    if (!this.reading) {
      this.reading = this.readChanges().finally(() => {
        this.reading = undefined;
      });
      return this.reading;
    }
    this.nextReading ??= this.reading
      .catch(() => undefined)
      .then(() => {
        this.nextReading = undefined;
        return this.current();
      });
    return this.nextReading;
  }

  /** Each document's date in ms, by document number ÷ 2. */
  get dates(): Float64Array {
    return this.createdAt;
  }

  /** Each document's popularity, by document number ÷ 2. */
  get popularities(): Int32Array {
    return this.popularity;
  }

  private async readChanges(): Promise<void> {
    const row = await this.read(this.readThrough, this.horizon);
    if (row.keys !== null) this.apply(Buffer.from(row.keys, "base64"));
    this.horizon = row.horizon;
  }

  private apply(packed: Buffer): void {
    let highest = this.readThrough;
    for (let at = 0; at < packed.length; at += PACKED_KEYS_BYTES)
      highest = Math.max(highest, packed.readInt32BE(at));
    this.reserve((highest >> 1) + 1);
    for (let at = 0; at < packed.length; at += PACKED_KEYS_BYTES) {
      const slot = packed.readInt32BE(at) >> 1;
      this.createdAt[slot] = packed.readDoubleBE(at + 4);
      this.popularity[slot] = packed.readInt32BE(at + 12);
    }
    this.readThrough = highest;
  }

  private reserve(slots: number): void {
    if (slots <= this.createdAt.length) return;
    const grown = Math.max(slots, Math.ceil(this.createdAt.length * 1.5));
    const createdAt = new Float64Array(grown);
    createdAt.set(this.createdAt);
    const popularity = new Int32Array(grown);
    popularity.set(this.popularity);
    this.createdAt = createdAt;
    this.popularity = popularity;
  }
}
