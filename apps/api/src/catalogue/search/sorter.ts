import { isFreeDocument, type Postings } from "./postings.js";
import { TopDocuments } from "./top-documents.js";

/** Marks of documents already met in the running sort, indexed by document number (zeroed after each). */
let met = new Uint8Array(0);

/**
 * The first `count` documents holding any of the postings' terms (free ones only with `freeOnly`) in the
 * order of their key (`keys`, by document number ÷ 2): highest first, the higher document number first among
 * equal keys; with `ascending`, lowest first and the lower number first. Also how many documents match, each
 * counted once: exact.
 */
export function sortMatches(
  lists: readonly Postings[],
  keys: Float64Array | Int32Array,
  options: { ascending: boolean; freeOnly: boolean; count: number },
): { documents: number[]; matches: number } {
  // Ascending is descending over negated keys and numbers.
  const sign = options.ascending ? -1 : 1;
  const top = new TopDocuments(options.count);
  let matches = 0;
  const offer = (document: number) => {
    matches += 1;
    top.offer(sign * ((keys[document >> 1] as number | undefined) ?? 0), sign * document);
  };
  if (lists.length === 1) {
    // One term's documents are already distinct.
    for (const document of (lists[0] as Postings).documents)
      if (!options.freeOnly || isFreeDocument(document)) offer(document);
  } else {
    const found: number[] = [];
    reserve(lists);
    for (const { documents } of lists) {
      for (const document of documents) {
        if (met[document] === 1 || (options.freeOnly && !isFreeDocument(document))) continue;
        met[document] = 1;
        found.push(document);
        offer(document);
      }
    }
    for (const document of found) met[document] = 0;
  }
  // Document numbers are never negative: negated ones are given back by their magnitude (not -0).
  return { documents: top.ranked().map((document) => Math.abs(document)), matches };
}

function reserve(lists: readonly Postings[]): void {
  let size = 0;
  for (const { documents } of lists) size = Math.max(size, (documents[documents.length - 1] ?? 0) + 1);
  if (size > met.length) met = new Uint8Array(Math.max(size, Math.ceil(met.length * 1.5)));
}
