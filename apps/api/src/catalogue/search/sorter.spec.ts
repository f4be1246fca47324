import { describe, expect, it } from "vitest";
import { createRandom } from "../../common/seeded-random.js";
import type { Postings } from "./postings.js";
import { sortKeyOf } from "./sort-keys.js";
import { sortMatches } from "./sorter.js";

/** The same order by sorting every match: key, then document number, both descending (ascending: both up). */
function sortedByHand(lists: Postings[], keys: ArrayLike<number>, ascending: boolean, freeOnly: boolean) {
  const matches = [...new Set(lists.flatMap((list) => [...list.documents]))].filter(
    (document) => !freeOnly || document % 2 === 1,
  );
  const sign = ascending ? -1 : 1;
  return matches.sort(
    (a, b) => sign * ((keys[b >> 1] as number) - (keys[a >> 1] as number)) || sign * (b - a),
  );
}

describe("sortMatches", () => {
  it("orders the matches of one to four terms by key, ties by document, and counts each once", () => {
    const random = createRandom(3);
    for (let round = 0; round < 200; round++) {
      const catalogue = 50 + Math.floor(random() * 2_000);
      // Few distinct keys: many ties, as popularity has.
      const keys = Int32Array.from({ length: catalogue }, () => Math.floor(random() * 6));
      const lists = Array.from({ length: 1 + Math.floor(random() * 4) }, () => {
        const share = random();
        const documents = Array.from({ length: 2 * catalogue }, (_, document) => document).filter(
          () => random() < share * 0.3,
        );
        return { documents: Int32Array.from(documents), impacts: new Uint8Array(documents.length) };
      });
      const ascending = random() < 0.5;
      const freeOnly = random() < 0.3;
      const count = Math.floor(random() * 80);
      const expected = sortedByHand(lists, keys, ascending, freeOnly);
      expect(sortMatches(lists, sortKeyOf(keys), { ascending, freeOnly, count })).toEqual({
        documents: expected.slice(0, count),
        matches: expected.length,
      });
    }
  });

  it("passes over the ranges of documents whose keys cannot reach the page, counting every match still", () => {
    const random = createRandom(5);
    const catalogue = 40_000;
    // Dates: distinct, in no order of the documents; a tenth of the documents never read (NaN).
    const keys = Float64Array.from({ length: catalogue }, () =>
      random() < 0.1 ? Number.NaN : 1.6e12 + random() * 1e11,
    );
    const readDocuments = Array.from({ length: 2 * catalogue }, (_, document) => document).filter(
      (document) => !Number.isNaN(keys[document >> 1] as number),
    );
    for (const share of [0.003, 0.05, 0.4]) {
      const lists = Array.from({ length: 2 }, () => {
        const documents = readDocuments.filter(() => random() < share);
        return { documents: Int32Array.from(documents), impacts: new Uint8Array(documents.length) };
      });
      for (const ascending of [false, true]) {
        for (const count of [1, 20, 500]) {
          const expected = sortedByHand(lists, keys, ascending, false);
          expect(sortMatches(lists, sortKeyOf(keys), { ascending, freeOnly: false, count })).toEqual({
            documents: expected.slice(0, count),
            matches: expected.length,
          });
        }
      }
    }
  });
});
