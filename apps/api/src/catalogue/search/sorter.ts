import { isFreeDocument, type Postings } from "./postings.js";
import { TopDocuments } from "./top-documents.js";

/** Past every document number: a list read to its end. */
const END = 0x7fffffff;

/**
 * The first `count` documents holding any of the postings' terms (free ones only with `freeOnly`) in the
 * order of their key (`keys`, by document number ÷ 2): highest first, the higher document number first among
 * equal keys; with `ascending`, lowest first and the lower number first. Also how many documents match, each
 * counted once: exact.
 *
 * The lists (each ascending) are merged, so that each document is met once and the keys are read in order of
 * document number; a pair the top would not keep is passed over without offering it.
 */
export function sortMatches(
  lists: readonly Postings[],
  keys: Float64Array | Int32Array,
  options: { ascending: boolean; freeOnly: boolean; count: number },
): { documents: number[]; matches: number } {
  // Ascending is descending over negated keys and numbers.
  const sign = options.ascending ? -1 : 1;
  const top = new TopDocuments(options.count);
  const postings = lists.map((list) => list.documents);
  const cursors = new Int32Array(postings.length);
  const heads = Int32Array.from(postings, (documents) => documents[0] ?? END);
  let matches = 0;
  for (;;) {
    let document = END;
    for (const head of heads) if (head < document) document = head;
    if (document === END) break;
    for (let list = 0; list < heads.length; list++) {
      if (heads[list] !== document) continue;
      const documents = postings[list] as Int32Array;
      const next = (cursors[list] as number) + 1;
      cursors[list] = next;
      heads[list] = next < documents.length ? (documents[next] as number) : END;
    }
    if (options.freeOnly && !isFreeDocument(document)) continue;
    matches += 1;
    const key = sign * ((keys[document >> 1] as number | undefined) ?? 0);
    if (top.admits(key, sign * document)) top.offer(key, sign * document);
  }
  // Document numbers are never negative: negated ones are given back by their magnitude (not -0).
  return { documents: top.ranked().map((document) => Math.abs(document)), matches };
}
