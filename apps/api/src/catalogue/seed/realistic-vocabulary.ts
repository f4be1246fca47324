import { createRequire } from "node:module";
import { createRandom } from "../../common/seeded-random.js";
import type { CatalogueEntry } from "./title-generator.js";

/**
 * The realistic catalogue's words: per language, 60,000 real words (from the English and French word lists
 * of the npm registry) in a fixed random order that is their rank, drawn along a Zipf–Mandelbrot curve
 * (probability ∝ 1 / (rank + 2.7), Mandelbrot's fit for text): a few words are in a large share of images,
 * most in few. Loaded on first use (the lists are a few megabytes).
 */
export const WORDS_PER_LANGUAGE = 60_000;
const MANDELBROT_SHIFT = 2.7;

export interface ZipfVocabulary {
  /** Most common first. */
  words: readonly string[];
  draw(random: () => number): string;
}

function zipfVocabulary(all: readonly string[], pattern: RegExp, seed: number): ZipfVocabulary {
  const candidates = all.filter((word) => word.length >= 3 && word.length <= 14 && pattern.test(word));
  const random = createRandom(seed);
  // A partial Fisher–Yates shuffle: the first WORDS_PER_LANGUAGE places are a uniform random pick, ranked.
  for (let index = 0; index < WORDS_PER_LANGUAGE; index++) {
    const other = index + Math.floor(random() * (candidates.length - index));
    [candidates[index], candidates[other]] = [candidates[other] as string, candidates[index] as string];
  }
  const words = candidates.slice(0, WORDS_PER_LANGUAGE);
  const cumulative = new Float64Array(words.length);
  let total = 0;
  for (let rank = 0; rank < words.length; rank++) {
    total += 1 / (rank + 1 + MANDELBROT_SHIFT);
    cumulative[rank] = total;
  }
  return {
    words,
    draw(draw) {
      const target = draw() * total;
      let low = 0;
      let high = words.length - 1;
      while (low < high) {
        const middle = (low + high) >> 1;
        if ((cumulative[middle] as number) < target) low = middle + 1;
        else high = middle;
      }
      return words[low] as string;
    },
  };
}

let vocabularies: { en: ZipfVocabulary; fr: ZipfVocabulary } | undefined;

export function realisticVocabularies(): { en: ZipfVocabulary; fr: ZipfVocabulary } {
  if (!vocabularies) {
    const require = createRequire(import.meta.url);
    vocabularies = {
      en: zipfVocabulary(require("an-array-of-english-words") as string[], /^[a-z]+$/, 1),
      fr: zipfVocabulary(require("an-array-of-french-words") as string[], /^[a-zàâäçéèêëîïôöùûüÿœæ]+$/, 2),
    };
  }
  return vocabularies;
}

function sentence(random: () => number, vocabulary: ZipfVocabulary): string {
  const length = 8 + Math.floor(random() * 7);
  const words = Array.from({ length }, () => vocabulary.draw(random));
  const text = words.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * A stock image as catalogues describe them: a title of 8–14 words in English and one in French, and 25–45
 * distinct keywords (English), a third of them words of the English title.
 */
export function generateRealisticEntry(random: () => number): CatalogueEntry {
  const { en, fr } = realisticVocabularies();
  const titles = { en: sentence(random, en), fr: sentence(random, fr) };
  const wanted = 25 + Math.floor(random() * 21);
  const titleWords = [...new Set(titles.en.toLowerCase().split(" "))];
  const tags = new Set<string>();
  while (tags.size < Math.min(wanted / 3, titleWords.length)) {
    tags.add(titleWords[Math.floor(random() * titleWords.length)] as string);
  }
  while (tags.size < wanted) tags.add(en.draw(random));
  return { titles, tags: [...tags] };
}
