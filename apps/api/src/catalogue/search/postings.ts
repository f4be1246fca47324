import { endianness } from "node:os";
import { LRUCache } from "lru-cache";
import type { TermPostingsRow } from "./search.statements.js";

/** Packed document numbers are big-endian; a little-endian machine swaps them after copying. */
const IS_LITTLE_ENDIAN = endianness() === "LE";

/**
 * A term's postings: the documents holding it, ascending, and its impact in each. A document number is
 * twice its indexing order, plus 1 for a free image (see the search_blocks migration).
 */
export interface Postings {
  documents: Int32Array;
  impacts: Uint8Array;
}

export const NO_POSTINGS: Postings = { documents: new Int32Array(0), impacts: new Uint8Array(0) };

export function isFreeDocument(document: number): boolean {
  return (document & 1) === 1;
}

/** A term's postings as its blocks store them (big-endian document numbers, impact bytes), unpacked. */
export function decodePostings(row: Pick<TermPostingsRow, "documents" | "impacts">): Postings {
  const packed = Buffer.from(row.documents, "base64");
  const documents = new Int32Array(packed.length >> 2);
  // Copied whole, then put in the machine's byte order at once: a read per number cost more than the ranking.
  const bytes = Buffer.from(documents.buffer);
  packed.copy(bytes);
  if (IS_LITTLE_ENDIAN) bytes.swap32();
  return { documents, impacts: new Uint8Array(Buffer.from(row.impacts, "base64")) };
}

/** Each postings' highest impact, found once: an API process keeps common terms' postings between searches. */
const highestImpacts = new WeakMap<Postings, number>();

export function highestImpact(postings: Postings): number {
  let highest = highestImpacts.get(postings);
  if (highest === undefined) {
    highest = 0;
    for (const impact of postings.impacts) if (impact > highest) highest = impact;
    highestImpacts.set(postings, highest);
  }
  return highest;
}

/** A term's postings best first, and how many of its documents are free; found once per postings. */
export interface ImpactOrder {
  /** Indexes into the postings: highest impact first, the newer document first among equal impacts. */
  order: Int32Array;
  free: number;
}

const impactOrders = new WeakMap<Postings, ImpactOrder>();

/** A counting sort on the impact byte, each impact's postings taken newest first. */
export function impactOrder(postings: Postings): ImpactOrder {
  let kept = impactOrders.get(postings);
  if (kept) return kept;
  const { documents, impacts } = postings;
  const starts = new Int32Array(257);
  for (const impact of impacts) starts[256 - impact] = (starts[256 - impact] as number) + 1;
  for (let level = 1; level < starts.length; level++)
    starts[level] = (starts[level] as number) + (starts[level - 1] as number);
  const order = new Int32Array(documents.length);
  let free = 0;
  for (let index = documents.length - 1; index >= 0; index--) {
    const level = 255 - (impacts[index] as number);
    order[starts[level] as number] = index;
    starts[level] = (starts[level] as number) + 1;
    if (isFreeDocument(documents[index] as number)) free += 1;
  }
  kept = { order, free };
  impactOrders.set(postings, kept);
  return kept;
}

/**
 * The first index at or after `from` whose document is not below `document` (documents ascending): steps
 * doubling from `from`, then a binary search within the last step.
 */
export function gallop(documents: Int32Array, from: number, document: number): number {
  let low = from;
  let step = 1;
  while (low + step < documents.length && (documents[low + step] as number) < document) {
    low += step;
    step *= 2;
  }
  if (low >= documents.length || (documents[low] as number) >= document) return low;
  let high = Math.min(low + step, documents.length);
  low += 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((documents[middle] as number) < document) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** One bit a document, by document number, for the documents counted so far: small enough to stay in cache. */
let counted = new Uint32Array(0);

/**
 * Postings holding at least one document in DENSE_SPACING numbers are counted by their own bitset, kept
 * beside them: a word of it a step, where their postings would take up to 32.
 */
const DENSE_SPACING = 32;

const bitsets = new WeakMap<Postings, Uint32Array>();

/** The document numbers postings span: up to their last, included. */
function span({ documents }: Postings): number {
  return (documents[documents.length - 1] ?? 0) + 1;
}

/** The 32-bit words of a bitset over `size` document numbers. */
const bitsetWords = (size: number) => (size >>> 5) + 1;

function isDense(postings: Postings): boolean {
  return postings.documents.length * DENSE_SPACING >= span(postings);
}

/** A dense term's documents as bits, by document number; set once per postings. */
function bitsetOf(postings: Postings): Uint32Array {
  let bits = bitsets.get(postings);
  if (bits) return bits;
  const { documents } = postings;
  bits = new Uint32Array(bitsetWords(span(postings)));
  for (let at = 0; at < documents.length; at++) {
    const document = documents[at] as number;
    bits[document >>> 5] = (bits[document >>> 5] as number) | (1 << (document & 31));
  }
  bitsets.set(postings, bits);
  return bits;
}

/** Bits of the free documents' numbers (odd ones) in a word of a bitset. */
const FREE_BITS = 0xaaaaaaaa | 0;

/** The bits set in a 32-bit word. */
function bitCount(word: number): number {
  let bits = word - ((word >>> 1) & 0x55555555);
  bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
  return Math.imul((bits + (bits >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/**
 * How many documents (free ones only with `freeOnly`) the postings hold, each counted once: their bits
 * set in one bitset (a dense term's own bitset joined a word at a time), then counted.
 */
export function countHolding(lists: readonly Postings[], freeOnly: boolean): number {
  const slots = bitsetWords(Math.max(0, ...lists.map(span)));
  if (slots > counted.length) counted = new Uint32Array(slots);
  else counted.fill(0, 0, slots);
  for (const postings of lists) {
    if (isDense(postings)) {
      const bits = bitsetOf(postings);
      for (let slot = 0; slot < bits.length; slot++)
        counted[slot] = (counted[slot] as number) | (bits[slot] as number);
      continue;
    }
    const { documents } = postings;
    // Indexed: a for-of over a typed array cost half again as much here.
    for (let at = 0; at < documents.length; at++) {
      const document = documents[at] as number;
      counted[document >>> 5] = (counted[document >>> 5] as number) | (1 << (document & 31));
    }
  }
  const mask = freeOnly ? FREE_BITS : -1;
  let count = 0;
  for (let slot = 0; slot < slots; slot++) count += bitCount((counted[slot] as number) & mask);
  return count;
}

interface KeptPostings {
  version: string;
  postings: Postings;
}

/**
 * Terms' postings kept in an API process, each with the version it was read at: a search reads the versions
 * of its terms and only fetches the postings that moved since (or were never read), so that the common
 * terms of a catalogue are not sent over again for each search. Bounded by their size: 5 bytes a posting,
 * 4 more for the order by impact kept beside them (impactOrder), and a dense term's bitset (bitsetOf).
 */
export class PostingsCache {
  private readonly kept: LRUCache<number, KeptPostings> | undefined;

  constructor(maxBytes: number) {
    this.kept =
      maxBytes > 0
        ? new LRUCache({
            maxSize: maxBytes,
            sizeCalculation: (entry) =>
              Math.max(
                1,
                entry.postings.documents.length * 9 +
                  (isDense(entry.postings) ? 4 * bitsetWords(span(entry.postings)) : 0),
              ),
          })
        : undefined;
  }

  /** The postings of each term kept at its given version, by term id. */
  current(terms: readonly { id: number; version: string }[]): Map<number, Postings> {
    const found = new Map<number, Postings>();
    for (const { id, version } of terms) {
      const entry = this.kept?.get(id);
      if (entry?.version === version) found.set(id, entry.postings);
    }
    return found;
  }

  keep(term: number, version: string, postings: Postings): void {
    this.kept?.set(term, { version, postings });
  }
}
