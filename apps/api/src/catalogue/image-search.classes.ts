import { type SearchWord, sum, termsOf } from "./image-search.ranking.js";

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
  /** How many postings the pivot has at its weight: what reading the class costs at most. */
  postings: number;
  /**
   * Whether the class is found by intersecting its terms' lists (the GIN index of each image's weighted
   * terms) rather than by reading its pivot's postings: when its count is only a bound, so that it may hold
   * no image, and its pivot has many postings.
   */
  isIntersected: boolean;
}

/** Classes of one score, among the images holding every word or among the others: ranked by date and id. */
export interface ClassGroup {
  score: number;
  classes: ImageClass[];
  documents: number;
  /**
   * Whether every class's count is exact, so that a page can skip the group by its count alone. A pair's
   * count says how many images hold both terms, not how many hold them and no other term of the search:
   * counts are exact with two terms, and with three once the classes of the images holding all three have
   * been read; otherwise the group must be read to know how many images it holds.
   */
  isExact: boolean;
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
  private readonly counts = new Map<string, PairCounts>();
  /** Worked out once: a search of the same words, a moment later, reuses them. */
  private everyWordGroups: ClassGroup[] | undefined;
  private anyTermImages: number | undefined;

  /**
   * @param intersectedPostings a class whose count is a bound is found through the index of weighted terms
   * from this many postings of its pivot at its weight (see AppConfig's catalogue)
   */
  constructor(
    private readonly words: readonly SearchWord[],
    rows: readonly TermPairRow[],
    private readonly intersectedPostings: number,
  ) {
    this.terms = termsOf(words).sort((a, b) => a - b);
    if (this.terms.length > MAX_RANKED_TERMS)
      throw new RangeError(`at most ${MAX_RANKED_TERMS} terms are ranked`);
    for (const row of rows) {
      const key = `${row.term_a}:${row.term_b}`;
      const byLower = this.counts.get(key) ?? new Map<number, Map<number, number>>();
      this.counts.set(key, byLower);
      const byHigher = byLower.get(row.impact_a) ?? new Map<number, number>();
      byLower.set(row.impact_a, byHigher);
      byHigher.set(row.impact_b, row.documents);
    }
  }

  /** The classes of the images holding every word, grouped by score, best first (a new array each time). */
  everyWord(): ClassGroup[] {
    this.everyWordGroups ??= this.groupsOf((held) => this.holdsEveryWord(held), undefined);
    return [...this.everyWordGroups];
  }

  /**
   * The classes of the images holding some of the words but not all, grouped by score, best first. `read`:
   * how many images each class holding every term held, when all were read whole (which makes a search of
   * three terms count exactly).
   */
  someWords(read?: ReadonlyMap<ImageClass, number>): ClassGroup[] {
    return this.groupsOf((held) => !this.holdsEveryWord(held), read && this.allTermsCounts(read));
  }

  /** The images holding all the search's terms, by their weights (in the terms' order). */
  private allTermsCounts(read: ReadonlyMap<ImageClass, number>): Map<string, number> {
    const counts = new Map<string, number>();
    for (const [found, documents] of read) {
      if (found.held.length === this.terms.length) counts.set(weightsKey(found.held), documents);
    }
    return counts;
  }

  /**
   * How many images hold any of the terms: exact with two terms (each term's images, less those holding both,
   * by their pairs' counts). With three or more, the images holding three terms are estimated from the pairs
   * (among the images holding one of them, as if the two others were independent, averaged over the three),
   * and those holding four or more are left out.
   */
  matches(): number {
    this.anyTermImages ??= this.countMatches();
    return this.anyTermImages;
  }

  private countMatches(): number {
    const alone = this.terms.map((term) => this.holding(term, term));
    let union = sum(alone);
    this.terms.forEach((first, at) => {
      for (const second of this.terms.slice(at + 1)) union -= this.holding(first, second);
    });
    this.terms.forEach((first, at) => {
      this.terms.slice(at + 1).forEach((second, next) => {
        for (const third of this.terms.slice(at + next + 2)) union += this.holdingThree(first, second, third);
      });
    });
    return Math.round(Math.min(sum(alone), Math.max(union, ...alone)));
  }

  /** How many images hold both terms (`lower` ≤ `higher`), at any weights: one term's images when the same. */
  private holding(lower: number, higher: number): number {
    let documents = 0;
    for (const byHigher of this.pair(lower, higher)?.values() ?? []) documents += sum([...byHigher.values()]);
    return documents;
  }

  /** An estimate of how many images hold three terms (ascending), from their pairs' counts. */
  private holdingThree(first: number, second: number, third: number): number {
    const [ab, ac, bc] = [
      this.holding(first, second),
      this.holding(first, third),
      this.holding(second, third),
    ];
    const estimates = [
      [this.holding(first, first), ab, ac],
      [this.holding(second, second), ab, bc],
      [this.holding(third, third), ac, bc],
    ].flatMap(([alone = 0, one = 0, other = 0]) => (alone > 0 ? [(one * other) / alone] : []));
    return Math.min(ab, ac, bc, sum(estimates) / Math.max(1, estimates.length));
  }

  private holdsEveryWord(held: readonly number[]): boolean {
    return this.words.every((word) => word.terms.some((term) => held.includes(term)));
  }

  /**
   * The classes of every subset of the terms that `isWanted`, grouped by score, best first. `allTerms`: the
   * images holding all the terms, by weights, when known.
   */
  private groupsOf(
    isWanted: (held: readonly number[]) => boolean,
    allTerms: ReadonlyMap<string, number> | undefined,
  ): ClassGroup[] {
    const classes: (ImageClass & { score: number; isExact: boolean })[] = [];
    for (let subset = 1; subset < 1 << this.terms.length; subset++) {
      const held = this.terms.filter((_, index) => subset & (1 << index));
      if (!isWanted(held)) continue;
      for (const found of this.classesHolding(held)) {
        const exact = this.exactCount(found, allTerms);
        const documents = exact ?? found.documents;
        if (documents > 0) {
          classes.push({
            ...found,
            documents,
            isIntersected: exact === undefined && found.postings >= this.intersectedPostings,
            isExact: exact !== undefined,
            score: this.scoreOf(found.held),
          });
        }
      }
    }
    classes.sort((a, b) => b.score - a.score);
    const groups: ClassGroup[] = [];
    for (const { score, isExact, ...found } of classes) {
      const last = groups.at(-1);
      if (last?.score === score) {
        last.classes.push(found);
        last.documents += found.documents;
        last.isExact &&= isExact;
      } else {
        groups.push({ score, classes: [found], documents: found.documents, isExact });
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
  private classesHolding(held: readonly number[]): Omit<ImageClass, "isIntersected">[] {
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
      return { held: terms, documents, pivot, postings: this.layerSize(pivot.term, pivot.impact) };
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
   * A class's exact count, when the counts known give it: the images holding its terms at its weights, less
   * those holding other terms of the search too, by inclusion and exclusion. With two terms, the pairs'
   * counts give it; with three, the counts of the images holding all three at each of their weights too
   * (`allTerms`). Undefined otherwise.
   */
  private exactCount(
    found: Omit<ImageClass, "pivot" | "postings" | "isIntersected">,
    allTerms: ReadonlyMap<string, number> | undefined,
  ): number | undefined {
    const { held } = found;
    const count = this.terms.length;
    if (count <= 2) {
      const [only] = held;
      return only && count === 2 && held.length === 1
        ? found.documents - this.withTerm(only, this.terms.find((term) => term !== only.term) as number)
        : found.documents;
    }
    if (count > 3 || !allTerms) return undefined;
    if (held.length === 3) return allTerms.get(weightsKey(held));
    let exact = found.documents;
    const [only] = held;
    if (only && held.length === 1) {
      for (const other of this.terms) if (other !== only.term) exact -= this.withTerm(only, other);
    }
    for (const [key, documents] of allTerms) {
      if (holdsWeights(key, this.terms, held)) exact += held.length === 1 ? documents : -documents;
    }
    return exact;
  }

  /** How many images hold `held` at its weight and `other` at any. */
  private withTerm(held: HeldTerm, other: number): number {
    let together = 0;
    if (held.term < other) {
      for (const documents of this.pair(held.term, other)?.get(held.impact)?.values() ?? [])
        together += documents;
    } else {
      for (const byHigher of this.pair(other, held.term)?.values() ?? [])
        together += byHigher.get(held.impact) ?? 0;
    }
    return together;
  }
}

/** The weights of held terms, in the terms' order: a key for the class of all the search's terms. */
function weightsKey(held: readonly HeldTerm[]): string {
  return [...held]
    .sort((a, b) => a.term - b.term)
    .map((entry) => entry.impact)
    .join(",");
}

/** Whether a key of weights of `terms` holds the weights of `held` for its terms. */
function holdsWeights(key: string, terms: readonly number[], held: readonly HeldTerm[]): boolean {
  const weights = key.split(",").map(Number);
  return held.every((entry) => weights[terms.indexOf(entry.term)] === entry.impact);
}

/** Classes read in one statement at most, so that its size stays small. */
export const MOST_CLASSES_READ_AT_ONCE = 48;

/**
 * Postings of classes whose count is a bound, past which a statement reads no more groups unless the page
 * lies past them: a group that fills the page spares the others, and those read after it were read in vain.
 * On bench:search's mix with the answer cache off, 3,000 gave a p99 of 98 and 103 ms, 1,000 (more
 * statements) 116 and 120 ms, at the same rate.
 */
const MOST_POSTINGS_READ_AT_ONCE = 3_000;

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
 * within a group, each class until it has given as many as the page can still need (`page.to - firstRank`)
 * or its count: answers how many each class gave (in the groups' order), and those ranked in the page, in
 * rank order.
 */
export type ClassReader<Image> = (
  groups: readonly ClassGroup[],
  firstRank: number,
) => Promise<{ sizes: readonly number[]; page: readonly Image[] }>;

/**
 * The page of a search of several words: the classes of the images holding every word, then, when the page
 * reaches past them, those of the images holding some, read with `read` a few groups at a time. A page
 * starting inside the first may end past them: both are read together. A page starting past them reads the
 * first whole, then only its own groups when that makes their counts exact.
 */
export async function readPage<Image>(
  pairs: SearchPairs,
  page: PageWindow,
  read: ClassReader<Image>,
): Promise<Image[]> {
  const groups = pairs.everyWord();
  const everyWord = sum(groups.map((group) => group.documents));
  let hasSomeWords = page.from < everyWord && everyWord < page.to;
  if (hasSomeWords) groups.push(...pairs.someWords());
  /** How many images the classes read so far held, each read whole (the page reached past them). */
  const held = new Map<ImageClass, number>();
  const images: Image[] = [];
  let at: ReadPosition = { group: 0, rank: 0 };
  let yieldRatio = FIRST_YIELD_RATIO;
  while (at.rank < page.to) {
    if (at.group === groups.length) {
      if (hasSomeWords) break;
      groups.push(...pairs.someWords(held));
      hasSomeWords = true;
      continue;
    }
    const next = groupsToRead(groups, at, page, yieldRatio);
    const reading = groups.slice(next.start, next.end);
    if (reading.length === 0) {
      // Exact counts put the page past every group there is so far.
      at = { group: next.end, rank: next.firstRank };
      continue;
    }
    const { sizes, page: found } = await read(reading, next.firstRank);
    for (const [index, member] of reading.flatMap((group) => group.classes).entries()) {
      held.set(member, sizes[index] ?? 0);
    }
    images.push(...found);
    yieldRatio = Math.max(MIN_YIELD_RATIO, sum(sizes) / sum(reading.map((group) => group.documents)));
    at = { group: next.end, rank: next.firstRank + sum(sizes) };
  }
  return images;
}

/**
 * The groups to read next for the page of ranks `from` to before `to`. Groups of exact counts before the
 * page are skipped, and are read only as far as the page reaches. Others are read from the top: all those
 * whose counts end before the page, and as many more as should hold what the page still misses twice over,
 * counting that the groups read so far held `yieldRatio` of their counts (a class whose terms meet in pairs
 * may hold no image with them all).
 */
function groupsToRead(
  groups: readonly ClassGroup[],
  at: ReadPosition,
  page: PageWindow,
  yieldRatio: number,
): GroupsToRead {
  let { group: start, rank: firstRank } = at;
  for (
    let group = groups[start];
    group?.isExact && firstRank + group.documents <= page.from;
    group = groups[start]
  ) {
    firstRank += group.documents;
    start++;
  }
  let end = start;
  let expected = 0;
  let most = 0;
  let classes = 0;
  let postings = 0;
  for (
    let group = groups[end];
    group && classes + group.classes.length <= MOST_CLASSES_READ_AT_ONCE;
    group = groups[end]
  ) {
    // Groups whose counts, at most, end before the page must all be read; past them, reading stops once the
    // page should be full or the postings to read run past the budget.
    const isEnough = firstRank + expected >= page.to || postings >= MOST_POSTINGS_READ_AT_ONCE;
    if (end > start && isEnough && firstRank + most >= page.from) break;
    expected += group.isExact ? group.documents : (group.documents * yieldRatio) / 2;
    most += group.documents;
    classes += group.classes.length;
    if (!group.isExact) postings += sum(group.classes.map((member) => member.postings));
    end++;
  }
  // A group of more classes than a statement reads is read alone.
  return { start, end: Math.max(end, Math.min(start + 1, groups.length)), firstRank };
}
