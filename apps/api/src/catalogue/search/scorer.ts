import { isFreeDocument, type Postings } from "./postings.js";

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

function reserve(lists: readonly Postings[]): void {
  let size = 0;
  for (const { documents } of lists) size = Math.max(size, (documents[documents.length - 1] ?? 0) + 1);
  if (size <= totals.length) return;
  const grown = Math.max(size, Math.ceil(totals.length * 1.5));
  totals = new Float64Array(grown);
  bests = new Float64Array(grown);
  marks = new Uint8Array(grown);
}

/** Whether `a` ranks below `b`: a lower score, or the same score and an older document. */
function ranksBelow(scoreA: number, documentA: number, scoreB: number, documentB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && documentA < documentB);
}

/** The best `capacity` (score, document) pairs seen, as a binary heap whose root is the lowest. */
class TopDocuments {
  private readonly scores: Float64Array;
  private readonly documents: Int32Array;
  private size = 0;

  constructor(private readonly capacity: number) {
    this.scores = new Float64Array(capacity);
    this.documents = new Int32Array(capacity);
  }

  offer(score: number, document: number): void {
    if (this.capacity === 0) return;
    if (this.size < this.capacity) {
      let at = this.size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!ranksBelow(score, document, this.scores[parent] as number, this.documents[parent] as number))
          break;
        this.scores[at] = this.scores[parent] as number;
        this.documents[at] = this.documents[parent] as number;
        at = parent;
      }
      this.scores[at] = score;
      this.documents[at] = document;
      return;
    }
    if (ranksBelow(score, document, this.scores[0] as number, this.documents[0] as number)) return;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const lower =
        right < this.size &&
        ranksBelow(
          this.scores[right] as number,
          this.documents[right] as number,
          this.scores[left] as number,
          this.documents[left] as number,
        )
          ? right
          : left;
      if (!ranksBelow(this.scores[lower] as number, this.documents[lower] as number, score, document)) break;
      this.scores[at] = this.scores[lower] as number;
      this.documents[at] = this.documents[lower] as number;
      at = lower;
    }
    this.scores[at] = score;
    this.documents[at] = document;
  }

  /** Best first. */
  ranked(): number[] {
    const order = Array.from({ length: this.size }, (_, index) => index);
    order.sort((a, b) =>
      ranksBelow(
        this.scores[a] as number,
        this.documents[a] as number,
        this.scores[b] as number,
        this.documents[b] as number,
      )
        ? 1
        : -1,
    );
    return order.map((index) => this.documents[index] as number);
  }
}

/**
 * BM25 over the search's words, exact over every match: a document's score is, summed over the words, the
 * best of the word's terms' idf × impact in it (a word's English and French stems count once). Answers the
 * best `count` documents, best first, ties broken by the newer document (higher number), and how many
 * documents hold any word. Every posting of the words is read once.
 */
export function rankDocuments(
  words: readonly (readonly WeightedTerm[])[],
  options: { freeOnly: boolean; count: number },
): { documents: number[]; matches: number } {
  reserve(words.flatMap((terms) => terms.map((term) => term.postings)));
  const matched: number[] = [];
  const touched: number[] = [];
  for (const terms of words) {
    touched.length = 0;
    for (const { postings, idf } of terms) {
      const { documents, impacts } = postings;
      for (let index = 0; index < documents.length; index++) {
        const document = documents[index] as number;
        if (options.freeOnly && !isFreeDocument(document)) continue;
        const score = idf * (impacts[index] as number);
        const best = bests[document] as number;
        if (best === 0) touched.push(document);
        if (score > best) bests[document] = score;
      }
    }
    for (const document of touched) {
      if (totals[document] === 0) matched.push(document);
      totals[document] = (totals[document] as number) + (bests[document] as number);
      bests[document] = 0;
    }
  }
  const top = new TopDocuments(Math.min(options.count, matched.length));
  for (const document of matched) {
    top.offer(totals[document] as number, document);
    totals[document] = 0;
  }
  return { documents: top.ranked(), matches: matched.length };
}

/** The documents holding any of the postings' terms (free ones only when asked), each once. */
export function matchingDocuments(lists: readonly Postings[], freeOnly: boolean): number[] {
  reserve(lists);
  const found: number[] = [];
  for (const { documents } of lists) {
    for (let index = 0; index < documents.length; index++) {
      const document = documents[index] as number;
      if (marks[document] === 1 || (freeOnly && !isFreeDocument(document))) continue;
      marks[document] = 1;
      found.push(document);
    }
  }
  for (const document of found) marks[document] = 0;
  return found;
}
