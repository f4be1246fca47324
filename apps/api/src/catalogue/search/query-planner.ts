import type { TermRow } from "./search.statements.js";

/** A catalogue term a search word stands for (an English or French stem), and how many images hold it. */
export interface SearchTerm {
  id: number;
  term: string;
  /** Where its postings stand: postings kept at another version are stale. */
  version: string;
  documents: number;
  /** BM25's inverse document frequency over the whole catalogue: rare terms weigh more. */
  idf: number;
}

/** A word of a search, with the catalogue terms it stands for. */
export interface SearchWord {
  typed: string;
  terms: SearchTerm[];
}

/** The words a search is made of: letters and digits, whatever separates them; each once. */
export function splitWords(keywords: string): string[] {
  return [...new Set(keywords.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0))];
}

/** BM25's idf, never negative: ln(1 + (N − n + 0.5) / (n + 0.5)). */
export function inverseDocumentFrequency(documents: number, catalogue: number): number {
  return Math.log(1 + (catalogue - documents + 0.5) / (documents + 0.5));
}

/** A word from the rows of its terms; a term the catalogue lacks (null id, or no image left) is dropped. */
export function toSearchWord(typed: string, rows: readonly TermRow[]): SearchWord {
  const terms = new Map<number, SearchTerm>();
  for (const row of rows) {
    if (row.term_id === null || row.term === null || row.version === null || row.documents <= 0) continue;
    terms.set(row.term_id, {
      id: row.term_id,
      term: row.term,
      version: row.version,
      documents: row.documents,
      idf: inverseDocumentFrequency(row.documents, row.catalogue),
    });
  }
  return { typed, terms: [...terms.values()] };
}

/**
 * The words that count: those the catalogue holds, each set of terms once (two spellings of one stem are one
 * word, as a word typed twice is).
 */
export function distinctWords(words: readonly SearchWord[]): SearchWord[] {
  const byTerms = new Map<string, SearchWord>();
  for (const word of words) {
    if (word.terms.length === 0) continue;
    const key = word.terms
      .map((term) => term.id)
      .sort((a, b) => a - b)
      .join(",");
    if (!byTerms.has(key)) byTerms.set(key, word);
  }
  return [...byTerms.values()];
}

/** The words' terms, each once. */
export function termsOf(words: readonly SearchWord[]): SearchTerm[] {
  const terms = new Map<number, SearchTerm>();
  for (const word of words) for (const term of word.terms) terms.set(term.id, term);
  return [...terms.values()];
}
