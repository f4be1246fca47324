import {
  countHolding,
  gallop,
  highestImpact,
  impactOrder,
  isFreeDocument,
  type Postings,
} from "./postings.js";
import { TopDocuments } from "./top-documents.js";

/** A term of a search word: its postings and its rarity. */
export interface WeightedTerm {
  postings: Postings;
  idf: number;
}

type Ranking = { documents: number[]; matches: number };

/**
 * BM25 over the search's words: a document's score is, summed over the words, the best of the word's terms'
 * idf × impact in it (a word's English and French stems count once). Answers the best `count` documents, best
 * first, ties broken by the newer document (higher number), and how many documents hold any word (free ones
 * only with `freeOnly`), exactly. A word of one term ranks its documents as its impacts do; any other search
 * merges its terms' postings (rankByMerge).
 */
export function rankDocuments(
  words: readonly (readonly WeightedTerm[])[],
  options: { freeOnly: boolean; count: number },
): Ranking {
  const [first] = words;
  if (words.length === 1 && first?.length === 1)
    return rankOneTerm((first[0] as WeightedTerm).postings, options);
  return rankByMerge(words, options);
}

/** A word of one term: its postings taken best first, only as many as the page needs, counted from their length. */
function rankOneTerm(postings: Postings, { freeOnly, count }: { freeOnly: boolean; count: number }): Ranking {
  const { order, free } = impactOrder(postings);
  const documents: number[] = [];
  for (let at = 0; at < order.length && documents.length < count; at++) {
    const document = postings.documents[order[at] as number] as number;
    if (!freeOnly || isFreeDocument(document)) documents.push(document);
  }
  return { documents, matches: freeOnly ? free : postings.documents.length };
}

/** A term's postings read in document order, and the most it can add to a document's score. */
interface TermCursor {
  word: number;
  idf: number;
  bound: number;
  documents: Int32Array;
  impacts: Uint8Array;
  at: number;
}

/**
 * Bounds are compared with a slack above rounding: a document's total is summed in one order, a bound in
 * another, and the two may differ in the last bit.
 */
const SLACK = 1 + 1e-9;

/**
 * The best `count` documents of several terms, their postings merged in document order (MaxScore,
 * document at a time, the merged terms kept in a heap on their next document: a sentence of many terms pays
 * a heap step per posting, not a look at every term per document): each document's total summed as it is
 * met; the lowest-bound terms left out of the merge once, together, they could not lift a document to the
 * k-th score (strictly: a newer one would rank above it), and then only looked up (a galloping search from
 * where the last one stopped) for the documents that can still reach it. Terms rather than words, so that a
 * word's common stem is left out while its rare one is merged. With a single term merged, its postings too
 * low to reach the k-th are passed over without a look. The count is exact: the documents met, or when
 * terms were left out, one pass marking every posting's document.
 */
function rankByMerge(
  words: readonly (readonly WeightedTerm[])[],
  options: { freeOnly: boolean; count: number },
): Ranking {
  const cursors: TermCursor[] = words.flatMap((terms, word) =>
    terms.map(({ postings, idf }) => ({
      word,
      idf,
      bound: idf * highestImpact(postings),
      ...postings,
      at: 0,
    })),
  );
  // The terms lowest bound first; the first `leftOut` of them are looked up, not merged.
  const byBound = [...cursors].sort((a, b) => a.bound - b.bound);
  const boundsBelow = [0];
  for (const cursor of byBound)
    boundsBelow.push((boundsBelow[boundsBelow.length - 1] as number) + cursor.bound);
  let leftOut = 0;
  /** The merged terms not yet read to their end, a heap on the document each stands at (the lowest first). */
  let heap = heapOf(cursors.filter((cursor) => cursor.documents.length > 0));
  /** Leaves out of the merge the lowest-bound terms that together score below `kth`. */
  const leaveOutBelow = (kth: number) => {
    const before = leftOut;
    while (leftOut < byBound.length && (boundsBelow[leftOut + 1] as number) * SLACK < kth) leftOut += 1;
    if (leftOut > before) {
      const merged = new Set(byBound.slice(leftOut));
      heap = heapOf(heap.filter((cursor) => merged.has(cursor)));
    }
  };
  // The word of the highest-bound term weighs most.
  const heaviest = byBound[byBound.length - 1];
  if (heaviest) leaveOutBelow(sampledKth(words, heaviest.word, options));
  const scores = new Float64Array(words.length);
  /** The words scored in the current document (each once), whose scores are cleared after it. */
  const scored = new Int32Array(words.length);
  let scoredCount = 0;
  const top = new TopDocuments(options.count);
  let met = 0;
  for (;;) {
    const alone = heap.length === 1 ? (heap[0] as TermCursor) : undefined;
    if (alone && leftOut > 0 && top.isFull()) {
      // Below this impact its document, whatever the left-out terms add, ranks below the k-th.
      const needed = (top.lowestScore() / SLACK - (boundsBelow[leftOut] as number)) / alone.idf;
      const { impacts } = alone;
      while (alone.at < impacts.length && (impacts[alone.at] as number) < needed) alone.at += 1;
      if (alone.at === impacts.length) break;
    }
    const lowest = heap[0];
    if (!lowest) break;
    const document = lowest.documents[lowest.at] as number;
    let partial = 0;
    // Every merged term at this document comes off the root in turn: a step per posting, not per term.
    for (
      let cursor: TermCursor | undefined = lowest;
      cursor?.documents[cursor.at] === document;
      cursor = heap[0]
    ) {
      partial += raise(cursor.word, cursor.idf * (cursor.impacts[cursor.at] as number));
      cursor.at += 1;
      if (cursor.at === cursor.documents.length) {
        const last = heap.pop() as TermCursor;
        if (heap.length === 0) break;
        heap[0] = last;
      }
      siftDown(heap, 0);
    }
    if (
      (!options.freeOnly || isFreeDocument(document)) &&
      (leftOut === 0 || lookUpLeftOut(document, partial))
    ) {
      met += 1;
      let total = 0;
      for (let word = 0; word < words.length; word++) total += scores[word] as number;
      top.offer(total, document);
      if (top.isFull()) leaveOutBelow(top.lowestScore());
    }
    while (scoredCount > 0) scores[scored[--scoredCount] as number] = 0;
  }
  const matches =
    leftOut === 0
      ? met
      : countHolding(
          words.flatMap((terms) => terms.map((term) => term.postings)),
          options.freeOnly,
        );
  return { documents: top.ranked(), matches };

  /** Raises a word's score in the current document to `score` if above it; answers by how much. */
  function raise(word: number, score: number): number {
    const best = scores[word] as number;
    if (score <= best) return 0;
    if (best === 0) scored[scoredCount++] = word;
    scores[word] = score;
    return score - best;
  }

  /**
   * Adds the left-out terms' scores of `document` to `scores`, highest bound first, while it can still
   * reach the top; false once it cannot.
   */
  function lookUpLeftOut(document: number, partial: number): boolean {
    let possible = partial + (boundsBelow[leftOut] as number);
    for (let rank = leftOut - 1; rank >= 0; rank--) {
      if (!top.admits(possible * SLACK, document)) return false;
      const cursor = byBound[rank] as TermCursor;
      possible -= cursor.bound;
      cursor.at = gallop(cursor.documents, cursor.at, document);
      if (cursor.documents[cursor.at] === document)
        possible += raise(cursor.word, cursor.idf * (cursor.impacts[cursor.at] as number));
    }
    return top.admits(possible * SLACK, document);
  }
}

/** The cursors ordered as a heap on the document each stands at. */
function heapOf(cursors: TermCursor[]): TermCursor[] {
  for (let index = (cursors.length >> 1) - 1; index >= 0; index--) siftDown(cursors, index);
  return cursors;
}

/** Moves the cursor at `from` down the heap to where the documents below it are not lower than its own. */
function siftDown(heap: TermCursor[], from: number): void {
  const cursor = heap[from] as TermCursor;
  const document = cursor.documents[cursor.at] as number;
  let index = from;
  for (;;) {
    let child = 2 * index + 1;
    if (child >= heap.length) break;
    let childCursor = heap[child] as TermCursor;
    const right = heap[child + 1];
    if (right && (right.documents[right.at] as number) < (childCursor.documents[childCursor.at] as number)) {
      child += 1;
      childCursor = right;
    }
    if ((childCursor.documents[childCursor.at] as number) >= document) break;
    heap[index] = childCursor;
    index = child;
  }
  heap[index] = cursor;
}

/**
 * A score the k-th reaches, known before the merge starts so that a common term can be left out of it from
 * its first posting: the k-th of the scores of a sample, the best postings (free ones only with `freeOnly`)
 * of the word `heaviest` (the one weighing most), where the best documents tend to be (its order by impact is kept with its
 * postings). Summed as the merge sums them. 0 when the sample holds fewer than `count` documents.
 */
function sampledKth(
  words: readonly (readonly WeightedTerm[])[],
  heaviest: number,
  { freeOnly, count }: { freeOnly: boolean; count: number },
): number {
  if (count === 0) return 0;
  const wanted = Math.max(2 * count, 64);
  const sample = new Set<number>();
  for (const { postings } of words[heaviest] ?? []) {
    const { order } = impactOrder(postings);
    let taken = 0;
    for (let at = 0; at < order.length && taken < wanted; at++) {
      const document = postings.documents[order[at] as number] as number;
      if (freeOnly && !isFreeDocument(document)) continue;
      sample.add(document);
      taken += 1;
    }
  }
  if (sample.size < count) return 0;
  const top = new TopDocuments(count);
  for (const document of sample) {
    let total = 0;
    for (const terms of words) {
      let best = 0;
      for (const { postings, idf } of terms) {
        const at = gallop(postings.documents, 0, document);
        if (postings.documents[at] === document)
          best = Math.max(best, idf * (postings.impacts[at] as number));
      }
      total += best;
    }
    top.offer(total, document);
  }
  return top.lowestScore();
}
