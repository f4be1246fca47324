import { describe, expect, it } from "vitest";
import { createRandom } from "../common/seeded-random.js";
import {
  type ClassGroup,
  type ClassReader,
  type ImageClass,
  MAX_RANKED_TERMS,
  MOST_CLASSES_READ_AT_ONCE,
  type PageWindow,
  readPage,
  SearchPairs,
  type TermPairRow,
} from "./image-search.classes.js";
import type { SearchWord } from "./image-search.ranking.js";

/** A catalogue image as ranking sees it: its terms with their weights, its date and id. */
interface ModelImage {
  id: string;
  createdAt: number;
  weights: Map<number, number>;
}

/** A catalogue of `count` images over `terms` terms, each image holding a few at weights of a few values. */
function modelCatalogue(seed: number, count: number, terms: number): ModelImage[] {
  const random = createRandom(seed);
  return Array.from({ length: count }, (_, index) => {
    // An image's weights share its length, as BM25's do: a short image weighs every term more.
    const length = Math.floor(random() * 12);
    const weights = new Map<number, number>();
    const held = 1 + Math.floor(random() * 4);
    for (let draw = 0; draw < held; draw++) {
      const frequency = 1 + Math.floor(random() * 2);
      weights.set(1 + Math.floor(random() * terms), 1000 + 300 * frequency - 50 * length);
    }
    return { id: `image-${String(index).padStart(4, "0")}`, createdAt: Math.floor(random() * 50), weights };
  });
}

/** What search_term_pairs holds for `images`: every pair of each image's terms, each term with itself too. */
function pairRows(images: readonly ModelImage[]): TermPairRow[] {
  const counts = new Map<string, number>();
  for (const image of images) {
    for (const [a, impactA] of image.weights) {
      for (const [b, impactB] of image.weights) {
        if (a > b) continue;
        const key = `${a}:${b}:${impactA}:${impactB}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
  }
  return [...counts].map(([key, documents]) => {
    const [term_a, term_b, impact_a, impact_b] = key.split(":").map(Number) as [
      number,
      number,
      number,
      number,
    ];
    return { term_a, term_b, impact_a, impact_b, documents };
  });
}

const word = (typed: string, terms: number[], idf: number): SearchWord => ({
  typed,
  terms,
  idf,
  documents: 0,
  freeDocuments: 0,
  largestTerm: { documents: 0, freeDocuments: 0 },
  catalogue: 0,
  freeCatalogue: 0,
});

/** Each word's idf times the weight of its best term the image holds, added in the words' order. */
function scoreOf(words: readonly SearchWord[], image: ModelImage): number {
  let score = 0;
  for (const searched of words) {
    const weights = searched.terms.flatMap((term) => image.weights.get(term) ?? []);
    if (weights.length > 0) score += searched.idf * Math.max(...weights);
  }
  return score;
}

const holdsEvery = (words: readonly SearchWord[], image: ModelImage) =>
  words.every((searched) => searched.terms.some((term) => image.weights.has(term)));

/** Every image holding a word, ranked by brute force: all the words first, then score, newest, greatest id. */
function rankedByBruteForce(words: readonly SearchWord[], images: readonly ModelImage[]): string[] {
  return images
    .filter((image) => words.some((searched) => searched.terms.some((term) => image.weights.has(term))))
    .sort(
      (a, b) =>
        Number(holdsEvery(words, b)) - Number(holdsEvery(words, a)) ||
        scoreOf(words, b) - scoreOf(words, a) ||
        b.createdAt - a.createdAt ||
        (a.id < b.id ? 1 : -1),
    )
    .map((image) => image.id);
}

/** A class's images: exactly its terms at its weights (no other search term), newest first. */
function imagesOf(images: readonly ModelImage[], terms: readonly number[], member: ImageClass): ModelImage[] {
  return images
    .filter((image) =>
      terms.every(
        (term) => image.weights.get(term) === member.held.find((held) => held.term === term)?.impact,
      ),
    )
    .sort(newestFirst);
}

const newestFirst = (a: ModelImage, b: ModelImage) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1);

/**
 * Reads classes as classPage's statement does: each class's images newest first, until the page can need no
 * more or the class's count is reached; `statements` counts the reads.
 */
function modelReader(images: readonly ModelImage[], terms: readonly number[], page: PageWindow) {
  const reader = {
    statements: 0,
    read: (async (groups: readonly ClassGroup[], firstRank: number) => {
      reader.statements++;
      const sizes: number[] = [];
      const found: string[] = [];
      let start = firstRank;
      for (const group of groups) {
        const members = group.classes.flatMap((member) => {
          const read = imagesOf(images, terms, member).slice(
            0,
            Math.min(member.documents, page.to - firstRank),
          );
          sizes.push(read.length);
          return read;
        });
        members.sort(newestFirst).forEach((image, at) => {
          if (start + at >= page.from && start + at < page.to) found.push(image.id);
        });
        start += members.length;
      }
      return { sizes, page: found };
    }) satisfies ClassReader<string>,
  };
  return reader;
}

describe("ranking several words by classes of images", () => {
  const images = modelCatalogue(7, 1500, 6);
  const rows = pairRows(images);
  const searches = {
    "two words": [word("a", [1], 1.3), word("b", [2], 0.7)],
    "three words": [word("a", [1], 1.3), word("b", [2], 0.7), word("c", [3], 2.1)],
    "four words": [word("a", [1], 1.1), word("b", [2], 0.9), word("c", [3], 1.7), word("d", [4], 0.4)],
    "a word of two terms": [word("a", [1, 5], 1.2), word("b", [2], 0.8)],
    "a term two words share": [word("a", [1], 1.2), word("a again", [1], 1.2), word("b", [3], 0.5)],
    "equal idfs (ties between classes)": [word("a", [1], 1), word("b", [2], 1), word("c", [6], 1)],
  };

  for (const [name, words] of Object.entries(searches)) {
    const expected = rankedByBruteForce(words, images);
    it.each([
      [0, 20],
      [35, 20],
      [expected.length - 30, 50],
      [expected.length + 5, 20],
    ])(`pages %i (%i images) of ${name} as a brute-force ranking of every image`, async (from, limit) => {
      const pairs = new SearchPairs(words, rows, 500);
      const page = { from, to: from + limit };
      const { read } = modelReader(images, pairs.terms, page);
      expect(await readPage(pairs, page, read)).toEqual(expected.slice(from, from + limit));
    });
  }

  it("counts two terms' classes exactly, and skips the classes before a page unread", async () => {
    const pairs = new SearchPairs(searches["two words"], rows, 500);
    const every = pairs.everyWord();
    expect(every.every((group) => group.isExact)).toBe(true);
    const holdingBoth = images.filter((image) => image.weights.has(1) && image.weights.has(2)).length;
    expect(every.reduce((total, group) => total + group.documents, 0)).toBe(holdingBoth);
    const holdingOne = images.filter((image) => image.weights.has(1) !== image.weights.has(2)).length;
    // The same whether or not the classes of both terms were read first.
    const read = new Map(
      every
        .flatMap((group) => group.classes)
        .map((member) => [member, imagesOf(images, pairs.terms, member).length]),
    );
    for (const some of [pairs.someWords(), pairs.someWords(read)]) {
      expect(some.reduce((total, group) => total + group.documents, 0)).toBe(holdingOne);
    }
    // A deep page: one read, of the groups the page falls in.
    const page = { from: holdingBoth + 40, to: holdingBoth + 60 };
    const reader = modelReader(images, pairs.terms, page);
    await readPage(pairs, page, reader.read);
    expect(reader.statements).toBe(1);
  });

  it("bounds three terms' classes by their pairs' counts, listing every class an image falls in", () => {
    const words = searches["three words"];
    const pairs = new SearchPairs(words, rows, 500);
    expect(pairs.everyWord().some((group) => !group.isExact)).toBe(true);
    const classes = pairs.everyWord().flatMap((group) => group.classes);
    for (const image of images.filter((candidate) => holdsEvery(words, candidate))) {
      const own = classes.find((member) =>
        member.held.every((held) => image.weights.get(held.term) === held.impact),
      );
      expect(own).toBeDefined();
      const alike = images.filter(
        (other) =>
          holdsEvery(words, other) &&
          [1, 2, 3].every((term) => other.weights.get(term) === image.weights.get(term)),
      );
      expect(own?.documents).toBeGreaterThanOrEqual(alike.length);
    }
  });

  it("counts three terms' other classes exactly once the classes of all three are read whole", async () => {
    const words = searches["three words"];
    const pairs = new SearchPairs(words, rows, 500);
    const every = pairs.everyWord();
    const held = new Map(
      every
        .flatMap((group) => group.classes)
        .map((member) => [member, imagesOf(images, pairs.terms, member).length]),
    );
    const some = pairs.someWords(held);
    expect(some.every((group) => group.isExact)).toBe(true);
    for (const member of some.flatMap((group) => group.classes)) {
      expect(member.documents).toBe(imagesOf(images, pairs.terms, member).length);
    }
    // A page deep among them: the classes of all three read whole (as many statements as that takes), then
    // the page's own groups in one statement more.
    const holdingAll = [...held.values()].reduce((total, documents) => total + documents, 0);
    const page = { from: holdingAll + 300, to: holdingAll + 320 };
    const reader = modelReader(images, pairs.terms, page);
    const found = await readPage(pairs, page, reader.read);
    expect(found).toEqual(rankedByBruteForce(words, images).slice(page.from, page.to));
    expect(reader.statements).toBe(Math.ceil(held.size / MOST_CLASSES_READ_AT_ONCE) + 1);
  });

  it("counts the images holding any of two terms exactly, and estimates three closely", () => {
    const holdingAny = (terms: readonly number[]) =>
      images.filter((image) => terms.some((term) => image.weights.has(term))).length;
    expect(new SearchPairs(searches["two words"], rows, 500).matches()).toBe(holdingAny([1, 2]));
    for (const words of [searches["three words"], searches["four words"]]) {
      const terms = words.flatMap((searched) => searched.terms);
      const estimate = new SearchPairs(words, rows, 500).matches();
      expect(Math.abs(estimate - holdingAny(terms)) / holdingAny(terms)).toBeLessThan(0.03);
    }
  });

  it("finds through the weighted terms the classes whose count is a bound, from the postings given", () => {
    const bounded = (intersectedPostings: number) =>
      new SearchPairs(searches["three words"], rows, intersectedPostings)
        .everyWord()
        .flatMap((group) => group.classes);
    expect(bounded(0).every((member) => member.isIntersected)).toBe(true);
    expect(bounded(Number.POSITIVE_INFINITY).some((member) => member.isIntersected)).toBe(false);
    const exact = new SearchPairs(searches["two words"], rows, 0)
      .everyWord()
      .flatMap((group) => group.classes);
    expect(exact.some((member) => member.isIntersected)).toBe(false);
  });

  it("groups classes of equal score, best first", () => {
    const groups = new SearchPairs(searches["equal idfs (ties between classes)"], rows, 500).everyWord();
    expect(groups.some((group) => group.classes.length > 1)).toBe(true);
    for (const [at, group] of groups.entries()) {
      if (at > 0) expect(group.score).toBeLessThan(groups[at - 1]?.score as number);
    }
  });

  it("refuses more terms than it ranks", () => {
    const words = Array.from({ length: MAX_RANKED_TERMS + 1 }, (_, at) => word(`w${at}`, [at + 1], 1));
    expect(() => new SearchPairs(words, rows, 500)).toThrow(RangeError);
  });
});
