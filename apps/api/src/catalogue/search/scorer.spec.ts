import { describe, expect, it } from "vitest";
import { rankDocuments, type WeightedTerm } from "./scorer.js";

/** A seeded pseudo-random generator (mulberry32), so that a failing model can be replayed. */
function randomFrom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A term held by about `share` of `catalogue` documents (even and odd numbers: paid and free), with impacts
 * drawn from `levels` values so that many documents tie.
 */
function termOver(random: () => number, catalogue: number, share: number, levels: number): WeightedTerm {
  const documents: number[] = [];
  const impacts: number[] = [];
  for (let document = 0; document < catalogue; document++) {
    if (random() >= share) continue;
    documents.push(document);
    impacts.push(255 - Math.floor(random() * levels) * Math.floor(255 / levels));
  }
  const idf = Math.log(1 + (catalogue - documents.length + 0.5) / (documents.length + 0.5));
  return { postings: { documents: Int32Array.from(documents), impacts: Uint8Array.from(impacts) }, idf };
}

/**
 * Every match scored as the scorer defines it, one at a time: the best `count`, best first, the newer document
 * first on a tie, and how many match.
 */
function modelRanking(
  words: readonly (readonly WeightedTerm[])[],
  options: { freeOnly: boolean; count: number },
): { documents: number[]; matches: number } {
  const totals = new Map<number, number>();
  for (const terms of words) {
    const bests = new Map<number, number>();
    for (const { postings, idf } of terms) {
      postings.documents.forEach((document, index) => {
        if (options.freeOnly && document % 2 === 0) return;
        bests.set(document, Math.max(bests.get(document) ?? 0, idf * (postings.impacts[index] as number)));
      });
    }
    for (const [document, best] of bests) totals.set(document, (totals.get(document) ?? 0) + best);
  }
  const documents = [...totals]
    .sort(([documentA, scoreA], [documentB, scoreB]) => scoreB - scoreA || documentB - documentA)
    .slice(0, options.count)
    .map(([document]) => document);
  return { documents, matches: totals.size };
}

const CATALOGUE = 40_000;

/** Words of one or two terms (a word's English and French stems), common and rare, over one catalogue. */
function searchOver(seed: number, shares: readonly (readonly number[])[], levels: number) {
  const random = randomFrom(seed);
  return shares.map((termShares) => termShares.map((share) => termOver(random, CATALOGUE, share, levels)));
}

/** The scorer's answer beside the model's: the same documents in the same order, and the same count. */
function expectAsModel(
  words: readonly (readonly WeightedTerm[])[],
  options: { freeOnly: boolean; count: number },
) {
  const ranked = rankDocuments(words, options);
  const model = modelRanking(words, options);
  const label = `${options.count} ${options.freeOnly}`;
  expect(ranked.documents, label).toEqual(model.documents);
  expect(ranked.matches, label).toBe(model.matches);
}

describe("rankDocuments", () => {
  const searches = [
    { name: "one common word", shares: [[0.3]] },
    { name: "one word of two overlapping stems", shares: [[0.2, 0.15]] },
    { name: "two common words", shares: [[0.25], [0.1]] },
    { name: "a common and a rare word", shares: [[0.3], [0.002]] },
    { name: "a word of two overlapping stems and others", shares: [[0.2, 0.15], [0.05], [0.01, 0.02]] },
    {
      name: "a sentence of fifteen words",
      shares: Array.from({ length: 15 }, (_, index) => [0.3 / (index + 1)]),
    },
  ];
  const pages = [20, 100, 1_020, 10_020];

  for (const { name, shares } of searches) {
    for (const levels of [3, 255]) {
      it(`ranks and counts ${name} (${levels} impact levels) as the model does, to offset 10,000`, () => {
        const words = searchOver(name.length * levels, shares, levels);
        for (const freeOnly of [false, true]) {
          for (const count of pages) expectAsModel(words, { freeOnly, count });
        }
      });
    }
  }

  it("ranks a word that no document holds, and answers no document for a count of none or no words", () => {
    const words = searchOver(7, [[0.2], [0]], 3);
    expectAsModel(words, { freeOnly: false, count: 50 });
    expectAsModel(words, { freeOnly: false, count: 0 });
    expectAsModel([], { freeOnly: false, count: 20 });
  });

  /** The term with its documents, or its impacts, counted as they are read. */
  function countingReads(
    term: WeightedTerm,
    part: "documents" | "impacts" = "documents",
  ): { term: WeightedTerm; reads: () => number } {
    let reads = 0;
    const counted = new Proxy(term.postings[part], {
      get(target, property) {
        if (typeof property === "string" && /^\d+$/.test(property)) reads += 1;
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return {
      term: { ...term, postings: { ...term.postings, [part]: counted } },
      reads: () => {
        const read = reads;
        reads = 0;
        return read;
      },
    };
  }

  it("scores a common word's postings only for the images that can still reach the top", () => {
    const [rare, common] = searchOver(11, [[0.002], [0.5]], 3) as [WeightedTerm[], WeightedTerm[]];
    const counted = countingReads(common[0] as WeightedTerm, "impacts");
    expectAsModel([rare, [counted.term]], { freeOnly: false, count: 20 });
    expect(counted.term.postings.impacts.length).toBeGreaterThan(19_000);
    // Its highest impact is found once, and kept with the postings (the model reads them all too).
    counted.reads();
    rankDocuments([rare, [counted.term]], { freeOnly: false, count: 20 });
    // The rare word's images, each looked up: not the 20,000 postings scored one by one.
    expect(counted.reads()).toBeLessThan(2_000);
  });

  it("reads a one-term word's postings once, then only as far as the page reaches", () => {
    const [[term]] = searchOver(13, [[0.5]], 3) as [[WeightedTerm]];
    const counted = countingReads(term);
    expectAsModel([[counted.term]], { freeOnly: false, count: 20 });
    expect(counted.reads()).toBeGreaterThan(19_000);
    // The postings' order by impact is kept: the next searches read a page's worth.
    expectAsModel([[counted.term]], { freeOnly: false, count: 20 });
    expect(counted.reads()).toBe(20);
    expectAsModel([[counted.term]], { freeOnly: true, count: 20 });
    expect(counted.reads()).toBeLessThan(100);
  });

  it("answers every match when the page reaches past them", () => {
    const words = searchOver(9, [[0.001], [0.002]], 3);
    const all = modelRanking(words, { freeOnly: false, count: 1_000_000 });
    expect(all.matches).toBeLessThan(1_000);
    expect(rankDocuments(words, { freeOnly: false, count: 10_020 })).toEqual(all);
  });
});
