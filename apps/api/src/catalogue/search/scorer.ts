import { isFreeDocument, POSTINGS_BLOCK, type Postings } from "./postings.js";

/** A term of a search word: its postings and its rarity. */
export interface WeightedTerm {
  postings: Postings;
  idf: number;
}

/**
 * Per-document marks, indexed by document number and kept between searches (cleared after each): counting
 * runs start to end without awaiting, so one process needs one.
 */
let marks = new Uint8Array(0);

function reserve(lists: readonly Postings[]): void {
  let size = 0;
  for (const { documents } of lists) size = Math.max(size, (documents[documents.length - 1] ?? 0) + 1);
  if (size > marks.length) marks = new Uint8Array(Math.max(size, Math.ceil(marks.length * 1.5)));
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

  isFull(): boolean {
    return this.size === this.capacity;
  }

  /** The score of the lowest kept document (the root). */
  lowestScore(): number {
    return this.scores[0] as number;
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

/** A term's postings being read from the newest document down: `at` is the current posting, −1 when done. */
interface TermCursor {
  postings: Postings;
  idf: number;
  at: number;
}

/** A search word's terms, and the most any document can score for it (the best of idf × largest impact). */
interface WordCursor {
  terms: TermCursor[];
  bound: number;
}

function cursorOf(terms: readonly WeightedTerm[]): WordCursor {
  const cursors = terms
    .filter((term) => term.postings.documents.length > 0)
    .map((term) => ({ postings: term.postings, idf: term.idf, at: term.postings.documents.length - 1 }));
  let bound = 0;
  for (const term of cursors) {
    for (const largest of term.postings.blockMaxima) bound = Math.max(bound, term.idf * largest);
  }
  return { terms: cursors, bound };
}

/** The last posting at or before `at` whose document is at most `document` (−1 if none). */
function seekDown(documents: Int32Array, at: number, document: number): number {
  if (at < 0 || (documents[at] as number) <= document) return at;
  let low = 0;
  let high = at;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((documents[middle] as number) <= document) low = middle;
    else high = middle - 1;
  }
  return (documents[low] as number) <= document ? low : -1;
}

/**
 * Adds the words' parts in the words' order, as a score is added: floating-point addition being monotonic,
 * a sum of upper parts taken in the same order is never below the score, so a bound never errs by rounding.
 */
function sumInOrder(parts: Float64Array): number {
  let sum = 0;
  for (const part of parts) sum += part;
  return sum;
}

/**
 * BM25 over the search's words: a document's score is, summed over the words, the best of the word's terms'
 * idf × impact in it (a word's English and French stems count once). Answers the best `count` documents,
 * best first, ties broken by the newer document (higher number), exactly as if every match were scored.
 *
 * Documents are visited from the newest down, so a document can only enter a full top by scoring strictly
 * above its lowest (an equal score loses the tie to every document already kept). Pruning (MaxScore with
 * block maxima): the words whose bounds add up to no more than that lowest score cannot rank a document on
 * their own, so only the others' postings are walked for candidates, and the former are looked up in a
 * candidate (by binary search) only while it can still rank; a run of candidates whose blocks' largest
 * impacts cannot rank is skipped whole.
 */
export function rankDocuments(
  words: readonly (readonly WeightedTerm[])[],
  options: { freeOnly: boolean; count: number },
): number[] {
  if (options.count === 0) return [];
  const cursors = words.map(cursorOf);
  const top = new TopDocuments(options.count);
  const byBound = cursors
    .map((_, index) => index)
    .sort((a, b) => (cursors[a]?.bound ?? 0) - (cursors[b]?.bound ?? 0));
  const isEssential = new Uint8Array(cursors.length).fill(1);
  const parts = new Float64Array(cursors.length);
  /** Words byBound[0 … firstEssential) are the non-essential ones. */
  let firstEssential = 0;
  let lowest = -1;
  for (;;) {
    let candidate = -1;
    for (let index = firstEssential; index < byBound.length; index++) {
      for (const term of (cursors[byBound[index] as number] as WordCursor).terms) {
        if (term.at >= 0) candidate = Math.max(candidate, term.postings.documents[term.at] as number);
      }
    }
    if (candidate < 0) break;
    if (top.isFull() && cannotRankBlocks(cursors, isEssential, parts, lowest)) {
      skipBlocks(cursors, isEssential);
      continue;
    }
    for (let word = 0; word < cursors.length; word++) {
      const cursor = cursors[word] as WordCursor;
      parts[word] = isEssential[word] === 1 ? scoreAt(cursor, candidate) : cursor.bound;
    }
    if (options.freeOnly && !isFreeDocument(candidate)) continue;
    let canRank = true;
    for (let index = firstEssential - 1; index >= 0 && canRank; index--) {
      if (top.isFull() && sumInOrder(parts) <= lowest) canRank = false;
      else {
        const word = byBound[index] as number;
        parts[word] = scoreAt(cursors[word] as WordCursor, candidate);
      }
    }
    if (!canRank) continue;
    const score = sumInOrder(parts);
    if (top.isFull() && score <= lowest) continue;
    top.offer(score, candidate);
    if (!top.isFull()) continue;
    lowest = top.lowestScore();
    while (firstEssential < byBound.length) {
      const word = byBound[firstEssential] as number;
      isEssential[word] = 0;
      for (let other = 0; other < cursors.length; other++) {
        parts[other] = isEssential[other] === 1 ? 0 : (cursors[other] as WordCursor).bound;
      }
      if (sumInOrder(parts) > lowest) {
        isEssential[word] = 1;
        break;
      }
      firstEssential++;
    }
  }
  return top.ranked();
}

/**
 * A word's part in `document`: the best of its terms' idf × impact there, each term's cursor moved below the
 * document (the visit goes down).
 */
function scoreAt(cursor: WordCursor, document: number): number {
  let best = 0;
  for (const term of cursor.terms) {
    const { documents, impacts } = term.postings;
    term.at = seekDown(documents, term.at, document);
    if (term.at >= 0 && documents[term.at] === document) {
      best = Math.max(best, term.idf * (impacts[term.at] as number));
      term.at--;
    }
  }
  return best;
}

/**
 * Whether no document down to the end of the essential words' current blocks can rank: each essential word
 * counted at its current blocks' largest impacts, the others at their bounds.
 */
function cannotRankBlocks(
  cursors: readonly WordCursor[],
  isEssential: Uint8Array,
  parts: Float64Array,
  lowest: number,
): boolean {
  for (let word = 0; word < cursors.length; word++) {
    const cursor = cursors[word] as WordCursor;
    if (isEssential[word] === 0) {
      parts[word] = cursor.bound;
      continue;
    }
    let best = 0;
    for (const term of cursor.terms) {
      if (term.at < 0) continue;
      const largest = term.postings.blockMaxima[Math.floor(term.at / POSTINGS_BLOCK)] as number;
      best = Math.max(best, term.idf * largest);
    }
    parts[word] = best;
  }
  return sumInOrder(parts) <= lowest;
}

/**
 * Moves the essential words' cursors past the documents their current blocks bound: down to the newest
 * document below the highest start of those blocks.
 */
function skipBlocks(cursors: readonly WordCursor[], isEssential: Uint8Array): void {
  let floor = -1;
  for (let word = 0; word < cursors.length; word++) {
    if (isEssential[word] === 0) continue;
    for (const term of (cursors[word] as WordCursor).terms) {
      if (term.at < 0) continue;
      const blockStart = term.at - (term.at % POSTINGS_BLOCK);
      if (blockStart > 0) floor = Math.max(floor, term.postings.documents[blockStart - 1] as number);
    }
  }
  for (let word = 0; word < cursors.length; word++) {
    if (isEssential[word] === 0) continue;
    for (const term of (cursors[word] as WordCursor).terms) {
      term.at = seekDown(term.postings.documents, term.at, floor);
    }
  }
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
