import { isFreeDocument, type Postings } from "./postings.js";
import { TopDocuments } from "./top-documents.js";

/** A term of a search word: its postings and its rarity. */
export interface WeightedTerm {
  postings: Postings;
  idf: number;
}

/**
 * Per-document scratch space, indexed by document number and kept between searches (zeroed after each):
 * ranking runs start to end without awaiting, so one process needs one.
 */
let totals = new Float64Array(0);
let bests = new Float64Array(0);
let marks = new Uint8Array(0);
/** The highest of `totals` so far in the running search: the k-th score is never above it. */
let highestTotal = 0;

function reserve(lists: readonly Postings[]): void {
  let size = 0;
  for (const { documents } of lists) size = Math.max(size, (documents[documents.length - 1] ?? 0) + 1);
  if (size <= totals.length) return;
  const grown = Math.max(size, Math.ceil(totals.length * 1.5));
  totals = new Float64Array(grown);
  bests = new Float64Array(grown);
  marks = new Uint8Array(grown);
}

/**
 * Up to this many matches a search's count is exact; above it the count may be an estimate (the words whose
 * postings were skipped are taken to fall on images independently of the others).
 */
export const EXACT_MATCHES = 1_000;

/** A search word's terms, the most one of its images can add to a score, and its longest postings. */
interface BoundedWord {
  terms: readonly WeightedTerm[];
  bound: number;
  longest: number;
}

/** Each postings' highest impact, found once: an API process keeps common terms' postings between searches. */
const highestImpacts = new WeakMap<Postings, number>();

function highestImpact(postings: Postings): number {
  let highest = highestImpacts.get(postings);
  if (highest === undefined) {
    highest = 0;
    for (const impact of postings.impacts) if (impact > highest) highest = impact;
    highestImpacts.set(postings, highest);
  }
  return highest;
}

function bounded(terms: readonly WeightedTerm[]): BoundedWord {
  let bound = 0;
  let longest = 0;
  for (const { postings, idf } of terms) {
    bound = Math.max(bound, idf * highestImpact(postings));
    longest = Math.max(longest, postings.documents.length);
  }
  return { terms, bound, longest };
}

/**
 * BM25 over the search's words: a document's score is, summed over the words, the best of the word's terms'
 * idf × impact in it (a word's English and French stems count once). Answers the best `count` documents, best
 * first, ties broken by the newer document (higher number), and how many documents hold any word (free ones
 * only with `freeOnly`) among `catalogue` documents.
 *
 * Exact top-k with MaxScore's pruning: the words are taken highest bound first, each posting read; once the
 * words left could not lift an image that none of the words read holds up to the k-th score so far, they are
 * only looked up for the images that can still reach the top (a binary search for each, or one pass over the
 * postings when those images are many), fewer after each word. Then the count of matches, over
 * EXACT_MATCHES, is estimated (estimatedMatches); searches filtered to free images read every posting, and
 * count exactly.
 */
export function rankDocuments(
  words: readonly (readonly WeightedTerm[])[],
  options: { freeOnly: boolean; count: number; catalogue: number },
): { documents: number[]; matches: number } {
  if (words.length === 1) return rankOneWord(words[0] as readonly WeightedTerm[], options);
  reserve(words.flatMap((terms) => terms.map((term) => term.postings)));
  highestTotal = 0;
  const ordered = words.map(bounded).sort((a, b) => b.bound - a.bound);
  let rest = ordered.reduce((sum, word) => sum + word.bound, 0);
  const matched: number[] = [];
  let next = 0;
  let threshold = 0;
  for (; next < ordered.length; next++) {
    const word = ordered[next] as BoundedWord;
    if (!options.freeOnly && options.count > 0 && matched.length >= options.count) {
      // Worth pruning only where the words left are long, and the count may then be estimated.
      // The words left outweigh every total (so the k-th too): no need to find the k-th yet.
      if (Math.max(matched.length, word.longest) > EXACT_MATCHES && rest < highestTotal) {
        threshold = kthScore(matched, options.count);
        if (rest < threshold) break;
      }
    }
    accumulate(word.terms, options.freeOnly, matched);
    rest -= word.bound;
  }
  let matches = matched.length;
  if (next < ordered.length) {
    const left = ordered.slice(next);
    // A document's score grows by at most `rest` more: those that cannot reach the k-th are left out.
    // Sorted as a typed array: numerically, without a comparison function.
    let candidates = Int32Array.from(
      matched.filter((document) => (totals[document] as number) + rest >= threshold),
    ).sort();
    for (const [index, word] of left.entries()) {
      addAmong(candidates, word.terms);
      if (index === left.length - 1) break;
      rest -= word.bound;
      // With less left to add and a k-th score as high as the candidates' totals now make it, fewer can
      // still reach the top: the next words are looked up for those only.
      if (candidates.length > options.count)
        threshold = Math.max(threshold, kthScore(candidates, options.count));
      candidates = candidates.filter((document) => (totals[document] as number) + rest >= threshold);
    }
    matches = estimatedMatches(matched.length, left, options.catalogue);
  }
  const top = new TopDocuments(Math.min(options.count, matched.length));
  for (const document of matched) {
    // Below the k-th score found while scoring (totals only grow), a document cannot be in the top.
    const total = totals[document] as number;
    if (total >= threshold) top.offer(total, document);
    totals[document] = 0;
  }
  return { documents: top.ranked(), matches };
}

/** A term's postings best first, and how many of its documents are free; found once per postings. */
interface ImpactOrder {
  /** Indexes into the postings: highest impact first, the newer document first among equal impacts. */
  order: Int32Array;
  free: number;
}

const impactOrders = new WeakMap<Postings, ImpactOrder>();

/** A counting sort on the impact byte, each impact's postings taken newest first. */
function impactOrder(postings: Postings): ImpactOrder {
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
 * One word needs no totals. A word of one term ranks its documents as its impacts do: its postings taken
 * best first, only as many as the page needs, counted from their length. Several terms' postings are walked
 * side by side in document order, each document's best term score offered to the top as it is met. The count
 * is exact either way.
 */
function rankOneWord(
  terms: readonly WeightedTerm[],
  options: { freeOnly: boolean; count: number },
): { documents: number[]; matches: number } {
  if (terms.length === 1) return rankOneTerm((terms[0] as WeightedTerm).postings, options);
  const top = new TopDocuments(options.count);
  const cursors = terms.map(() => 0);
  let matches = 0;
  for (;;) {
    let document = Number.POSITIVE_INFINITY;
    for (let term = 0; term < terms.length; term++) {
      const { documents } = (terms[term] as WeightedTerm).postings;
      const at = cursors[term] as number;
      if (at < documents.length) document = Math.min(document, documents[at] as number);
    }
    if (document === Number.POSITIVE_INFINITY) break;
    let best = 0;
    for (let term = 0; term < terms.length; term++) {
      const { postings, idf } = terms[term] as WeightedTerm;
      const at = cursors[term] as number;
      if (postings.documents[at] !== document) continue;
      best = Math.max(best, idf * (postings.impacts[at] as number));
      cursors[term] = at + 1;
    }
    if (options.freeOnly && !isFreeDocument(document)) continue;
    matches += 1;
    top.offer(best, document);
  }
  return { documents: top.ranked(), matches };
}

function rankOneTerm(
  postings: Postings,
  { freeOnly, count }: { freeOnly: boolean; count: number },
): { documents: number[]; matches: number } {
  const { order, free } = impactOrder(postings);
  const documents: number[] = [];
  for (let at = 0; at < order.length && documents.length < count; at++) {
    const document = postings.documents[order[at] as number] as number;
    if (!freeOnly || isFreeDocument(document)) documents.push(document);
  }
  return { documents, matches: freeOnly ? free : postings.documents.length };
}

/** Adds each document's best of the word's terms to its total; a document new to `matched` joins it. */
function accumulate(terms: readonly WeightedTerm[], freeOnly: boolean, matched: number[]): void {
  if (terms.length === 1) {
    accumulateTerm(terms[0] as WeightedTerm, freeOnly, matched);
    return;
  }
  const touched: number[] = [];
  for (const { postings, idf } of terms) {
    const { documents, impacts } = postings;
    for (let index = 0; index < documents.length; index++) {
      const document = documents[index] as number;
      if (freeOnly && !isFreeDocument(document)) continue;
      const score = idf * (impacts[index] as number);
      const best = bests[document] as number;
      if (best === 0) touched.push(document);
      if (score > best) bests[document] = score;
    }
  }
  for (const document of touched) {
    const total = totals[document] as number;
    if (total === 0) matched.push(document);
    const grown = total + (bests[document] as number);
    totals[document] = grown;
    if (grown > highestTotal) highestTotal = grown;
    bests[document] = 0;
  }
}

/**
 * A word of one term adds its score to the totals directly: there is no best of several terms to find. The
 * total's update is written out here as in `accumulate`: called as a function per posting it cost 17 %.
 */
function accumulateTerm({ postings, idf }: WeightedTerm, freeOnly: boolean, matched: number[]): void {
  const { documents, impacts } = postings;
  for (let index = 0; index < documents.length; index++) {
    const document = documents[index] as number;
    if (freeOnly && !isFreeDocument(document)) continue;
    const total = totals[document] as number;
    if (total === 0) matched.push(document);
    const grown = total + idf * (impacts[index] as number);
    totals[document] = grown;
    if (grown > highestTotal) highestTotal = grown;
  }
}

/** Adds the word's best term score to the total of each of `candidates` (ascending) that holds it. */
function addAmong(candidates: Int32Array, terms: readonly WeightedTerm[]): void {
  for (const { postings, idf } of terms) {
    const { documents, impacts } = postings;
    // A binary search a candidate reads about log2(postings) of them; a pass reads them all once.
    if (candidates.length * Math.log2(documents.length + 1) < documents.length) {
      let from = 0;
      for (const document of candidates) {
        from = lowerBound(documents, document, from);
        if (from === documents.length) break;
        if (documents[from] === document)
          bests[document] = Math.max(bests[document] as number, idf * (impacts[from] as number));
      }
    } else {
      for (const document of candidates) marks[document] = 1;
      for (let index = 0; index < documents.length; index++) {
        const document = documents[index] as number;
        if (marks[document] === 1)
          bests[document] = Math.max(bests[document] as number, idf * (impacts[index] as number));
      }
      for (const document of candidates) marks[document] = 0;
    }
  }
  for (const document of candidates) {
    totals[document] = (totals[document] as number) + (bests[document] as number);
    bests[document] = 0;
  }
}

/** The first index at or after `from` whose document is not below `document` (documents ascending). */
function lowerBound(documents: Int32Array, document: number, from: number): number {
  let low = from;
  let high = documents.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((documents[middle] as number) < document) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The `count`-th best total among `matched` (at least `count` of them). */
function kthScore(matched: Iterable<number>, count: number): number {
  const top = new TopDocuments(count);
  for (const document of matched) top.offer(totals[document] as number, document);
  return top.lowestScore();
}

/**
 * How many documents hold any word: the `read` ones, and of the others the share the words `left` would
 * cover if each term fell on documents independently of the others. At least what is known: the documents
 * read, and each word's longest postings.
 */
function estimatedMatches(read: number, left: readonly BoundedWord[], catalogue: number): number {
  const size = Math.max(catalogue, 1);
  let missed = 1;
  for (const word of left) {
    for (const { postings } of word.terms) missed *= 1 - Math.min(1, postings.documents.length / size);
  }
  const estimate = Math.round(read + (catalogue - read) * (1 - missed));
  return Math.max(estimate, read, ...left.map((word) => word.longest));
}
