// What bench:search asks: a mix of searches as a catalogue's users send them, built from the catalogue's own
// vocabulary, and a Zipf-shaped draw over them so that popular searches repeat and the tail does not.
import { generateRealisticEntry } from "../../apps/api/dist/catalogue/seed/realistic-vocabulary.js";
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
 * Searches over the realistic catalogue: about 80 % of 1–3 words, 15 % of 4–15 words (sentences, prompts) and
 * 5 % of 1–3 words with one misspelled, drawn from a generated entry's titles (English or French) and keywords,
 * so that words come along the vocabulary's Zipf curve; plus filters, sorts and later pages as below.
 * @param {() => number} random
 */
function realisticKeywords(random) {
  const entry = generateRealisticEntry(random);
  const language = random() < 0.6 ? "en" : "fr";
  const pool = [...entry.titles[language].toLowerCase().split(" "), ...(language === "en" ? entry.tags : [])];
  const kind = random();
  const wanted = kind < 0.8 || kind >= 0.95 ? 1 + Math.floor(random() * 3) : 4 + Math.floor(random() * 12);
  /** @type {string[]} */
  const chosen = [];
  while (chosen.length < Math.min(wanted, new Set(pool).size)) {
    const word = pick(random, pool);
    if (!chosen.includes(word)) chosen.push(word);
  }
  const longWords = chosen.filter((word) => word.length >= 5);
  if (kind >= 0.95 && longWords.length > 0) {
    const slipped = pick(random, longWords);
    chosen[chosen.indexOf(slipped)] = misspell(random, slipped);
  }
  return chosen.join(" ");
}

/** The demo vocabulary's searches: 1–3 words of one entry, about 5 % with a word misspelled. @param {() => number} random */
function demoKeywords(random) {
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
  return chosen.join(" ");
}

/**
 * At least `count` distinct searches: keywords of the catalogue's vocabulary (see above) (English or French), about 5 % with a word
 * misspelled, 20 % filterFree, 20 % an explicit sort, 15 % a later page (a tenth of those deep, up to
 * offset 10,000) and 2 % without keywords. The same seed gives the same searches.
 * @param {number} count @param {"realistic" | "demo"} vocabulary @param {number} [seed]
 * @returns {SearchBody[]}
 */
export function buildSearchMix(count, vocabulary, seed = 7) {
  const keywordsOf = vocabulary === "realistic" ? realisticKeywords : demoKeywords;
  const random = createRandom(seed);
  /** @type {Map<string, SearchBody>} */
  const distinct = new Map();
  while (distinct.size < count) {
    /** @type {SearchBody} */
    const body = {};
    if (random() >= 0.02) body.search = keywordsOf(random);
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
