import type { SortKeysRow } from "./search.statements.js";

/** Bytes a document's keys take in a read: its number (int4), its date (float8, ms), its popularity (int4). */
const PACKED_KEYS_BYTES = 16;

/** A range of documents whose highest and lowest keys are kept: document number >> RANGE_SHIFT (256 slots). */
export const RANGE_SHIFT = 9;
const RANGE_SLOTS = 1 << (RANGE_SHIFT - 1);

/**
 * One sort key of every document, by document number ÷ 2 (a document never read is NaN for dates, 0 for
 * popularity), and the highest and lowest of each range's, so that a sort passes over the ranges none of
 * whose documents can reach its page.
 */
export interface SortKey {
  values: Float64Array | Int32Array;
  highest: Float64Array;
  lowest: Float64Array;
}

/** The key over `values`, each range's bounds found. */
export function sortKeyOf(values: Float64Array | Int32Array): SortKey {
  const ranges = Math.ceil(values.length / RANGE_SLOTS);
  const key = { values, highest: new Float64Array(ranges), lowest: new Float64Array(ranges) };
  for (let range = 0; range < ranges; range++) boundRange(key, range);
  return key;
}

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
  private createdAt = sortKeyOf(new Float64Array(0));
  private popularity = sortKeyOf(new Int32Array(0));
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

  /** Each document's date in ms. */
  get dates(): SortKey {
    return this.createdAt;
  }

  /** Each document's popularity. */
  get popularities(): SortKey {
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
    const changedRanges = new Set<number>();
    for (let at = 0; at < packed.length; at += PACKED_KEYS_BYTES) {
      const slot = packed.readInt32BE(at) >> 1;
      this.createdAt.values[slot] = packed.readDoubleBE(at + 4);
      this.popularity.values[slot] = packed.readInt32BE(at + 12);
      changedRanges.add(slot >> (RANGE_SHIFT - 1));
    }
    for (const range of changedRanges) {
      boundRange(this.createdAt, range);
      boundRange(this.popularity, range);
    }
    this.readThrough = highest;
  }

  private reserve(slots: number): void {
    const held = this.createdAt.values.length;
    if (slots <= held) return;
    const grown = Math.max(slots, Math.ceil(held * 1.5));
    const createdAt = new Float64Array(grown).fill(Number.NaN);
    createdAt.set(this.createdAt.values);
    const popularity = new Int32Array(grown);
    popularity.set(this.popularity.values);
    this.createdAt = sortKeyOf(createdAt);
    this.popularity = sortKeyOf(popularity);
  }
}

/** A range's highest and lowest key, found again over its documents (those never read left out). */
function boundRange(key: SortKey, range: number): void {
  let highest = Number.NEGATIVE_INFINITY;
  let lowest = Number.POSITIVE_INFINITY;
  const end = Math.min((range + 1) * RANGE_SLOTS, key.values.length);
  for (let slot = range * RANGE_SLOTS; slot < end; slot++) {
    const value = key.values[slot] as number;
    // NaN: never read (comparisons with it are false).
    if (value > highest) highest = value;
    if (value < lowest) lowest = value;
  }
  key.highest[range] = highest;
  key.lowest[range] = lowest;
}
