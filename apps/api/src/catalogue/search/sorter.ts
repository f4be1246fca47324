import { countHolding, gallop, isFreeDocument, type Postings } from "./postings.js";
import { RANGE_SHIFT, type SortKey } from "./sort-keys.js";
import { TopDocuments } from "./top-documents.js";

/** Past every document number: a list read to its end. */
const END = 0x7fffffff;

/**
 * The first `count` documents holding any of the postings' terms (free ones only with `freeOnly`) in the
 * order of their key: highest first, the higher document number first among equal keys; with `ascending`,
 * lowest first and the lower number first. Also how many documents match, each counted once: exact.
 *
 * The lists (each ascending) are merged, so that each document is met once and the keys are read in order of
 * document number; a pair the top would not keep is passed over without offering it, and once the top is
 * full, so is a whole range of documents whose best key could not enter it (each list's cursor galloping
 * past it). Then the documents are counted by one pass over every posting.
 */
export function sortMatches(
  lists: readonly Postings[],
  key: SortKey,
  options: { ascending: boolean; freeOnly: boolean; count: number },
): { documents: number[]; matches: number } {
  // Ascending is descending over negated keys and numbers.
  const sign = options.ascending ? -1 : 1;
  const keys = key.values;
  const bestOfRange = options.ascending ? key.lowest : key.highest;
  const top = new TopDocuments(options.count);
  const postings = lists.map((list) => list.documents);
  const cursors = new Int32Array(postings.length);
  const heads = Int32Array.from(postings, (documents) => documents[0] ?? END);
  let met = 0;
  let passedOver = false;
  for (;;) {
    let document = END;
    for (const head of heads) if (head < document) document = head;
    if (document === END) break;
    const range = document >> RANGE_SHIFT;
    // The range's best pair: its best key with its highest document (lowest when ascending).
    const bestDocument = options.ascending ? range << RANGE_SHIFT : ((range + 1) << RANGE_SHIFT) - 1;
    if (top.isFull() && !top.admits(sign * (bestOfRange[range] as number), sign * bestDocument)) {
      const next = (range + 1) << RANGE_SHIFT;
      for (let list = 0; list < heads.length; list++) {
        if ((heads[list] as number) >= next) continue;
        const documents = postings[list] as Int32Array;
        const at = gallop(documents, cursors[list] as number, next);
        cursors[list] = at;
        heads[list] = at < documents.length ? (documents[at] as number) : END;
      }
      passedOver = true;
      continue;
    }
    for (let list = 0; list < heads.length; list++) {
      if (heads[list] !== document) continue;
      const documents = postings[list] as Int32Array;
      const next = (cursors[list] as number) + 1;
      cursors[list] = next;
      heads[list] = next < documents.length ? (documents[next] as number) : END;
    }
    if (options.freeOnly && !isFreeDocument(document)) continue;
    met += 1;
    const value = sign * ((keys[document >> 1] as number | undefined) ?? 0);
    if (top.admits(value, sign * document)) top.offer(value, sign * document);
  }
  const matches = passedOver ? countHolding(lists, options.freeOnly) : met;
  // Document numbers are never negative: negated ones are given back by their magnitude (not -0).
  return { documents: top.ranked().map((document) => Math.abs(document)), matches };
}
