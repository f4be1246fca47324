import type { TermRow } from "./image-search.statements.js";

/** Counts are exact up to this many matches; above it an estimate from the terms' frequencies stands in. */
export const EXACT_COUNT_LIMIT = 1000;

/** A word of a search, with the catalogue terms it stands for (its English and French stems). */
export interface SearchWord {
  typed: string;
  terms: number[];
  /** Catalogue images holding one of its terms (one holding both stems counts twice: an upper bound). */
  documents: number;
  freeDocuments: number;
  /** The images of its most common term: at most what counting reads of one term. */
  largestTerm: { documents: number; freeDocuments: number };
  /** BM25's inverse document frequency: rare words weigh more. */
  idf: number;
  catalogue: number;
  freeCatalogue: number;
}

/** The words a search is made of: letters and digits, whatever separates them. */
export function splitWords(keywords: string): string[] {
  return [...new Set(keywords.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0))];
}

/** A word from the rows of its terms; a term the catalogue lacks (null id, or no image left) is dropped. */
export function toSearchWord(typed: string, rows: readonly TermRow[]): SearchWord {
  const known = rows.filter((row) => row.term_id !== null && row.documents > 0);
  const catalogue = rows[0]?.catalogue ?? 0;
  const documents = Math.min(
    catalogue,
    known.reduce((total, row) => total + row.documents, 0),
  );
  return {
    typed,
    terms: known.map((row) => row.term_id as number),
    documents,
    freeDocuments: known.reduce((total, row) => total + row.free_documents, 0),
    largestTerm: {
      documents: Math.max(0, ...known.map((row) => row.documents)),
      freeDocuments: Math.max(0, ...known.map((row) => row.free_documents)),
    },
    idf: Math.log(1 + (catalogue - documents + 0.5) / (documents + 0.5)),
    catalogue,
    freeCatalogue: rows[0]?.free_catalogue ?? 0,
  };
}

/** The words' terms, each once, in the order the words give them. */
export function termsOf(words: readonly SearchWord[]): number[] {
  return [...new Set(words.flatMap((word) => word.terms))];
}

function documentsOf(word: SearchWord, freeOnly: boolean): number {
  return freeOnly ? word.freeDocuments : word.documents;
}

/**
 * Whether the images holding any of the words are counted exactly: no term of them reaches EXACT_COUNT_LIMIT,
 * so counting reads at most that many postings per term.
 */
export function isCountedExactly(words: readonly SearchWord[], freeOnly: boolean): boolean {
  return words.every(
    (word) => (freeOnly ? word.largestTerm.freeDocuments : word.largestTerm.documents) <= EXACT_COUNT_LIMIT,
  );
}

/**
 * How many images hold any of the words, or undefined when they must be counted (see isCountedExactly). From
 * their terms' pairs' counts when given (see SearchPairs.matches); else, as if the words were independent
 * (exact for one word of one term).
 */
export function estimateMatches(
  words: readonly SearchWord[],
  freeOnly: boolean,
  pairs?: { matches(): number },
): number | undefined {
  if (isCountedExactly(words, freeOnly)) return undefined;
  if (pairs) return Math.max(EXACT_COUNT_LIMIT + 1, pairs.matches());
  const catalogue = freeOnly ? words[0]?.freeCatalogue : words[0]?.catalogue;
  if (!catalogue) return EXACT_COUNT_LIMIT + 1;
  const missedByAll = words.reduce(
    (product, word) => product * (1 - Math.min(1, documentsOf(word, freeOnly) / catalogue)),
    1,
  );
  return Math.max(EXACT_COUNT_LIMIT + 1, Math.round(catalogue * (1 - missedByAll)));
}

export function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
