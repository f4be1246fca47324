// What bench:search asks: a mix of searches as a catalogue's users send them, built from the catalogue's own
// vocabulary, and a Zipf-shaped draw over them so that popular searches repeat and the tail does not.
import { generateEntry } from "../../apps/api/dist/catalogue/seed/title-generator.js";
import { createRandom } from "../../apps/api/dist/common/seeded-random.js";

/** Words a user would not type alone: articles and prepositions of both languages. */
const FILLER = new Set(
  "a an the of in on at by and near along under with for to from into over"
    .concat(" un une le la les de du des d l au aux dans sur sous pres bord avec en qui fait long")
    .split(" "),
);

/** @typedef {{ search?: string, filterFree?: boolean, sort?: string, offset?: number, limit?: number }} SearchBody */

/** @param {() => number} random @param {readonly T[]} values @template T @returns {T} */
function pick(random, values) {
  return /** @type {T} */ (values[Math.floor(random() * values.length)]);
}

/** A typing slip in a word of five letters or more: a letter dropped, doubled or swapped with the next. */
function misspell(/** @type {() => number} */ random, /** @type {string} */ word) {
  const at = 1 + Math.floor(random() * (word.length - 3));
  const slip = Math.floor(random() * 3);
  if (slip === 0) return word.slice(0, at) + word.slice(at + 1);
  if (slip === 1) return word.slice(0, at) + word.charAt(at) + word.slice(at);
  return word.slice(0, at) + word.charAt(at + 1) + word.charAt(at) + word.slice(at + 2);
}

/** The words of a catalogue entry a user could search it by, in one language (tags are English). */
function wordsOf(/** @type {ReturnType<typeof generateEntry>} */ entry, /** @type {"en" | "fr"} */ language) {
  const words = `${entry.titles[language]} ${language === "en" ? entry.tags.join(" ") : ""}`
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 3 && !FILLER.has(word.normalize("NFD").replace(/\p{M}/gu, "")));
  return [...new Set(words)];
}

/**
 * At least `count` distinct searches: 1–3 words of one entry (English or French), about 5 % with a word
 * misspelled, 20 % filterFree, 20 % an explicit sort, 15 % a later page (a tenth of those deep, up to
 * offset 10,000) and 2 % without keywords. The same seed gives the same searches.
 * @param {number} count @param {number} [seed]
 * @returns {SearchBody[]}
 */
export function buildSearchMix(count, seed = 7) {
  const random = createRandom(seed);
  /** @type {Map<string, SearchBody>} */
  const distinct = new Map();
  while (distinct.size < count) {
    /** @type {SearchBody} */
    const body = {};
    if (random() >= 0.02) {
      const words = wordsOf(generateEntry(random), random() < 0.6 ? "en" : "fr");
      const wanted = random() < 0.45 ? 1 : random() < 0.65 ? 2 : 3;
      /** @type {string[]} */
      const chosen = [];
      while (chosen.length < Math.min(wanted, words.length)) {
        const word = pick(random, words);
        if (!chosen.includes(word)) chosen.push(word);
      }
      const longWords = chosen.filter((word) => word.length >= 5);
      if (random() < 0.05 && longWords.length > 0) {
        const slipped = pick(random, longWords);
        chosen[chosen.indexOf(slipped)] = misspell(random, slipped);
      }
      body.search = chosen.join(" ");
    }
    if (random() < 0.19) body.filterFree = true;
    if (random() < 0.18) body.sort = pick(random, ["relevance", "newest", "oldest", "popular"]);
    if (random() < 0.11) {
      body.offset =
        random() < 0.1 ? 20 * (50 + Math.floor(random() * 451)) : 20 * (1 + Math.floor(random() * 10));
    }
    distinct.set(JSON.stringify(body), body);
  }
  return [...distinct.values()];
}

/**
 * Draws indexes 0…n-1 with probability proportional to 1/(rank+1)^exponent: index 0 the most popular.
 * @param {number} n @param {number} [exponent] @param {number} [seed]
 */
export function zipfDraw(n, exponent = 1, seed = 11) {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let rank = 0; rank < n; rank++) {
    total += 1 / (rank + 1) ** exponent;
    cumulative[rank] = total;
  }
  const random = createRandom(seed);
  return () => {
    const target = random() * total;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] ?? total) < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}
