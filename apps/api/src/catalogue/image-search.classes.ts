import { type SearchWord, sum } from "./image-search.ranking.js";

/**
 * Ranking several words by classes of images. An image's score depends only on which of the search's terms
 * it holds and at which weights (a weight follows from the term's frequency in the image and the image's
 * length), so images holding the same terms at the same weights form a class of equal scores, ordered among
 * themselves by date and id. The counts of images holding each pair of terms at each pair of weights
 * (search_term_pairs) give every class a search's images can fall in, and how many images each holds at
 * most: ranking sorts those classes, then reads the images of the classes a page falls in, newest first.
 */

/** How many catalogue images hold two terms at two weights; a term paired with itself: at one weight. */
export interface TermPairRow {
  term_a: number;
  term_b: number;
  impact_a: number;
  impact_b: number;
  documents: number;
}

/** A search term held at a weight. */
export interface HeldTerm {
  term: number;
  impact: number;
}

/** The images holding exactly the search terms of `held` (none of its other terms), at those weights. */
export interface ImageClass {
  held: HeldTerm[];
  /** How many images it holds: exactly, or at most when the ranking is not exact. */
  documents: number;
  /** The held term whose postings at its weight are fewest: those read to find the class's images. */
  pivot: HeldTerm;
}

/** Classes of one score, among the images holding every word or among the others: ranked by date and id. */
export interface ClassGroup {
  score: number;
  classes: ImageClass[];
  documents: number;
}

/**
 * Terms a search may rank by relevance: every subset of them is a possible set of terms an image holds, so
 * the work grows as 2^terms (255 subsets at 8).
 */
export const MAX_RANKED_TERMS = 8;

/** Counts by the weight of the lower term, then of the higher. */
type PairCounts = Map<number, Map<number, number>>;

/** The counts of a search's pairs of terms, and the words its terms stand for. */
export class SearchPairs {
  /** The search's terms, ascending. */
  readonly terms: number[];
  /**
   * Whether every class's count is exact (a search of at most two terms), so that a page can skip the
   * classes before it by their counts alone. Otherwise a pair's count says how many images hold both terms,
   * not how many hold them and no other term of the search, and the classes before a page must be read.
   */
  readonly isExact: boolean;
  private readonly counts = new Map<string, PairCounts>();

  constructor(
    private readonly words: readonly SearchWord[],
    rows: readonly TermPairRow[],
  ) {
    this.terms = [...new Set(words.flatMap((word) => word.terms))].sort((a, b) => a - b);
    if (this.terms.length > MAX_RANKED_TERMS)
      throw new RangeError(`at most ${MAX_RANKED_TERMS} terms are ranked`);
    this.isExact = this.terms.length <= 2;
    for (const row of rows) {
      const key = `${row.term_a}:${row.term_b}`;
      const byLower = this.counts.get(key) ?? new Map<number, Map<number, number>>();
      this.counts.set(key, byLower);
      const byHigher = byLower.get(row.impact_a) ?? new Map<number, number>();
      byLower.set(row.impact_a, byHigher);
      byHigher.set(row.impact_b, row.documents);
    }
  }

  /** The classes of the images holding every word, grouped by score, best first. */
  everyWord(): ClassGroup[] {
    return this.groupsOf((held) => this.holdsEveryWord(held));
  }

  /** The classes of the images holding some of the words but not all, grouped by score, best first. */
  someWords(): ClassGroup[] {
    return this.groupsOf((held) => !this.holdsEveryWord(held));
  }

  private holdsEveryWord(held: readonly number[]): boolean {
    return this.words.every((word) => word.terms.some((term) => held.includes(term)));
  }

  /** The classes of every subset of the terms that `isWanted`, grouped by score, best first. */
  private groupsOf(isWanted: (held: readonly number[]) => boolean): ClassGroup[] {
    const classes: (ImageClass & { score: number })[] = [];
    for (let subset = 1; subset < 1 << this.terms.length; subset++) {
      const held = this.terms.filter((_, index) => subset & (1 << index));
      if (!isWanted(held)) continue;
      for (const found of this.classesHolding(held)) {
        const documents = this.isExact ? this.exactCount(found) : found.documents;
        if (documents > 0) classes.push({ ...found, documents, score: this.scoreOf(found.held) });
      }
    }
    classes.sort((a, b) => b.score - a.score);
    const groups: ClassGroup[] = [];
    for (const { score, ...found } of classes) {
      const last = groups.at(-1);
      if (last?.score === score) {
        last.classes.push(found);
        last.documents += found.documents;
      } else {
        groups.push({ score, classes: [found], documents: found.documents });
      }
    }
    return groups;
  }

  private pair(lower: number, higher: number): PairCounts | undefined {
    return this.counts.get(`${lower}:${higher}`);
  }

  /** How many images hold `term` at `impact` (its pair with itself). */
  private layerSize(term: number, impact: number): number {
    return this.pair(term, term)?.get(impact)?.get(impact) ?? 0;
  }

  /**
   * Every class of images holding the terms of `held` (ascending) at weights that each pair of them meets
   * at, with the least of those pairs' counts: no more images hold the terms at those weights.
   */
  private classesHolding(held: readonly number[]): ImageClass[] {
    const [first, ...rest] = held as [number, ...number[]];
    let partial: { impacts: number[]; documents: number }[] = [...(this.pair(first, first) ?? [])].map(
      ([impact, self]) => ({ impacts: [impact], documents: self.get(impact) ?? 0 }),
    );
    rest.forEach((term, at) => {
      const grown: typeof partial = [];
      for (const { impacts, documents } of partial) {
        // The weights of `term` that the first term allows, kept to those every other term held allows.
        for (const [impact, together] of this.pair(first, term)?.get(impacts[0] as number) ?? []) {
          let least = Math.min(documents, together);
          for (let earlier = 1; earlier <= at && least > 0; earlier++) {
            least = Math.min(
              least,
              this.pair(held[earlier] as number, term)
                ?.get(impacts[earlier] as number)
                ?.get(impact) ?? 0,
            );
          }
          if (least > 0) grown.push({ impacts: [...impacts, impact], documents: least });
        }
      }
      partial = grown;
    });
    return partial.map(({ impacts, documents }) => {
      const terms = held.map((term, at) => ({ term, impact: impacts[at] as number }));
      const pivot = terms.reduce((fewest, entry) =>
        this.layerSize(entry.term, entry.impact) < this.layerSize(fewest.term, fewest.impact)
          ? entry
          : fewest,
      );
      return { held: terms, documents, pivot };
    });
  }

  /** A class's score: each word's idf times its best held term's weight, added in the words' order as SQL does. */
  private scoreOf(held: readonly HeldTerm[]): number {
    let score = 0;
    for (const word of this.words) {
      let best = 0;
      for (const entry of held)
        if (entry.impact > best && word.terms.includes(entry.term)) best = entry.impact;
      if (best > 0) score += word.idf * best;
    }
    return score;
  }

  /**
   * A class's exact count in a search of at most two terms: both terms, the pair's count; one term alone, its
   * images at that weight less those holding the other term too.
   */
  private exactCount(found: ImageClass): number {
    const [only, ...others] = found.held;
    const other = this.terms.find((term) => term !== only?.term);
    if (!only || others.length > 0 || other === undefined) return found.documents;
    let together = 0;
    if (only.term < other) {
      for (const documents of this.pair(only.term, other)?.get(only.impact)?.values() ?? [])
        together += documents;
    } else {
      for (const byHigher of this.pair(other, only.term)?.values() ?? [])
        together += byHigher.get(only.impact) ?? 0;
    }
    return found.documents - together;
  }
}

/** Classes read in one statement at most, so that its size and its planning stay small. */
export const MOST_CLASSES_READ_AT_ONCE = 48;

/**
 * The least share of their counts that the groups read next are expected to hold: classes whose terms meet
 * in pairs may hold no image with them all, and reading on expects at least this of the next.
 */
const MIN_YIELD_RATIO = 0.05;

/**
 * The share of their counts the first groups read are expected to hold, before any is read. Over the
 * three-word searches of bench:search's mix, expecting a quarter took 1.2 statements and 2.5 ms of
 * PostgreSQL's CPU a search; expecting all of it, 1.6 and 2.9 ms; a tenth, 1.0 and 2.8 ms (more classes read).
 */
const FIRST_YIELD_RATIO = 0.25;

/** Where reading stands: the next group to read, and how many images rank before it. */
interface ReadPosition {
  group: number;
  rank: number;
}

/** Groups `start` to before `end` are read next, and `firstRank` images rank before them. */
interface GroupsToRead {
  start: number;
  end: number;
  firstRank: number;
}

/** A page of ranks `from` to before `to`. */
export interface PageWindow {
  from: number;
  to: number;
}

/**
 * Reads the images of groups ranked after the first `firstRank` images, group after group and newest first
 * within a group (at most `page.to - firstRank` of each class): answers how many each group held, and
 * those ranked in the page, in rank order.
 */
export type ClassReader<Image> = (
  groups: readonly ClassGroup[],
  firstRank: number,
) => Promise<{ sizes: readonly number[]; page: readonly Image[] }>;

/**
 * The page of a search of several words: the classes of the images holding every word, then, when the page
 * reaches past them, those of the images holding some, read with `read` a few groups at a time.
 */
export async function readPage<Image>(
  pairs: SearchPairs,
  page: PageWindow,
  read: ClassReader<Image>,
): Promise<Image[]> {
  const groups = pairs.everyWord();
  // Fewer images than the page reaches may hold every word: then those holding some are read in the same go.
  let hasSomeWords = sum(groups.map((group) => group.documents)) < page.to;
  if (hasSomeWords) groups.push(...pairs.someWords());
  const images: Image[] = [];
  let at: ReadPosition = { group: 0, rank: 0 };
  let yieldRatio = FIRST_YIELD_RATIO;
  while (at.rank < page.to) {
    if (at.group === groups.length) {
      if (hasSomeWords) break;
      groups.push(...pairs.someWords());
      hasSomeWords = true;
      continue;
    }
    const next = groupsToRead(groups, pairs.isExact, at, page, yieldRatio);
    const reading = groups.slice(next.start, next.end);
    if (reading.length === 0) {
      // Exact counts put the page past every group there is so far.
      at = { group: next.end, rank: next.firstRank };
      continue;
    }
    const { sizes, page: found } = await read(reading, next.firstRank);
    const held = sum(sizes);
    images.push(...found);
    yieldRatio = Math.max(MIN_YIELD_RATIO, held / sum(reading.map((group) => group.documents)));
    at = { group: next.end, rank: next.firstRank + held };
  }
  return images;
}

/**
 * The groups to read next for the page of ranks `from` to before `to`. With exact counts, the groups before
 * the page are skipped and those the page falls in are read. Otherwise every group is read from the top, as
 * many at once as should hold what the page still misses twice over, counting that the groups read so far
 * held `yieldRatio` of their counts (a class whose terms meet in pairs may hold no image with them all).
 */
function groupsToRead(
  groups: readonly ClassGroup[],
  isExact: boolean,
  at: ReadPosition,
  page: PageWindow,
  yieldRatio: number,
): GroupsToRead {
  let { group: start, rank: firstRank } = at;
  if (isExact) {
    while (start < groups.length && firstRank + (groups[start]?.documents ?? 0) <= page.from) {
      firstRank += groups[start]?.documents ?? 0;
      start++;
    }
  }
  let end = start;
  let expected = 0;
  let classes = 0;
  while (end < groups.length && classes + (groups[end]?.classes.length ?? 0) <= MOST_CLASSES_READ_AT_ONCE) {
    const reaches = isExact ? firstRank + expected : firstRank + (expected * yieldRatio) / 2;
    if (end > start && reaches >= page.to) break;
    expected += groups[end]?.documents ?? 0;
    classes += groups[end]?.classes.length ?? 0;
    end++;
  }
  // A group of more classes than a statement reads is read alone.
  return { start, end: Math.max(end, Math.min(start + 1, groups.length)), firstRank };
}
