import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImage } from "../../../tests/support/images.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { splitWords } from "../src/catalogue/search/query-planner.js";
import { seedCatalogue } from "../src/catalogue/seed/catalogue-seeder.js";
import { generateRealisticEntry } from "../src/catalogue/seed/realistic-vocabulary.js";
import { createRandom } from "../src/common/seeded-random.js";

type Found = { filteredResults: number; images: { id: string }[] };

/**
 * Relevance over a seeded catalogue of 4,000 images (about 1,400 hold "animal") and a few known images
 * written after it, so that they are the last rows PostgreSQL would come across.
 */
describe("catalogue search relevance", () => {
  let api: TestApi;
  let apiKey: string;
  const ids: Record<string, string> = {};

  async function search(body: Record<string, unknown>): Promise<Found> {
    const response = await api.request("/v1/images/search", { apiKey, method: "POST", json: body });
    expect(response.status).toBe(200);
    return (await readJson(response)) as Found;
  }

  beforeAll(async () => {
    api = await startTestApi({
      env: { SEARCH_CACHE_SECONDS: "0" },
    });
    ({ apiKey } = await api.createAccount());
    const prisma = api.resources.database.prisma;
    await seedCatalogue(prisma, { count: 4000, seed: 11 });
    const known = {
      animal: { en: "Animal", fr: "Animal", tags: ["animal"] },
      foxInSnow: { en: "A fox in the snow", fr: "Un renard dans la neige", tags: ["fox", "snow"] },
      fox: { en: "Fox", fr: "Renard", tags: ["fox"] },
      snowyForest: { en: "Pines", fr: "Pins d'une forêt enneigée", tags: [] },
      elephant: { en: "Elephant", fr: "Éléphant", tags: ["elephant"] },
      lighthouse: { en: "Lighthouse", fr: "Phare", tags: ["lighthouse"] },
      freeLighthouse: { en: "A lighthouse on a cliff at dusk", fr: "Un phare", tags: [], free: true },
      harbourInTitle: { en: "Harbour", fr: "Port", tags: ["quay"] },
      harbourInTags: { en: "Quay", fr: "Quai", tags: ["harbour"] },
      shortOwl: { en: "An owl", fr: "Une chouette", tags: [] },
      longOwl: { en: "An owl on an old branch of a tall tree", fr: "Une chouette", tags: [] },
      axolotl: { en: "An axolotl in a pond", fr: "Un axolotl dans une mare", tags: ["axolotl", "animal"] },
    };
    for (const [name, image] of Object.entries(known)) ids[name] = (await createImage(prisma, image)).id;
  });
  afterAll(() => api.close());

  it.each([
    ["a word more than a thousand images hold", { search: "animal" }, "animal"],
    ["two words: the image holding both, over shorter ones holding one", { search: "fox snow" }, "foxInSnow"],
    ["French words", { search: "renard neige" }, "foxInSnow"],
    ["French without accents", { search: "foret enneigee" }, "snowyForest"],
    ["English and French words together", { search: "fox neige" }, "foxInSnow"],
    ["a misspelled word", { search: "elefant" }, "elephant"],
    ["a plural", { search: "lighthouses" }, "lighthouse"],
    ["free images only", { search: "lighthouse", filterFree: true }, "freeLighthouse"],
    ["a title word over a tag", { search: "harbour" }, "harbourInTitle"],
    ["a short title over a long one", { search: "owl" }, "shortOwl"],
    ["a rare word", { search: "axolotl" }, "axolotl"],
    ["a rare word beside a common one", { search: "axolotl animal" }, "axolotl"],
  ])("puts the expected image first: %s", async (_case, body, expected) => {
    const { images } = await search(body);
    expect(images[0]?.id).toBe(ids[expected]);
  });

  it("pages through equal scores in one stable order", async () => {
    const whole = await search({ search: "forest", limit: 60 });
    const pages = [];
    for (const offset of [0, 20, 40]) pages.push(...(await search({ search: "forest", offset })).images);
    expect(pages.map((image) => image.id)).toEqual(whole.images.map((image) => image.id));
    expect(new Set(pages.map((image) => image.id)).size).toBe(60);
  });

  it("ranks pages of several words the same way, however far", async () => {
    const whole = await search({ search: "animal forest", limit: 100, offset: 100 });
    const pages = [];
    for (const offset of [100, 150])
      pages.push(...(await search({ search: "animal forest", limit: 50, offset })).images);
    expect(pages.map((image) => image.id)).toEqual(whole.images.map((image) => image.id));
  });
});

/**
 * BM25 against a brute force over a model catalogue of 3,000 realistic images (titles of 8–14 words in
 * English and French, 25–45 keywords, real vocabularies along a Zipf curve): for 200 random searches of 1–15
 * words, page 1 holds the brute force's top 20, ties aside, and the count is every match.
 */
/** Searches as users type them: 1–15 words of a realistic image's titles and keywords, some free only. */
function randomSearches(count: number) {
  const random = createRandom(5);
  return Array.from({ length: count }, () => {
    const entry = generateRealisticEntry(random);
    const pool = [...`${entry.titles.en} ${entry.titles.fr}`.toLowerCase().split(" "), ...entry.tags];
    const length = 1 + Math.floor(random() * 15);
    const words = Array.from({ length }, () => pool[Math.floor(random() * pool.length)] as string);
    return { search: words.join(" "), filterFree: random() < 0.2 };
  });
}

describe("catalogue search relevance against a brute-force BM25", () => {
  let api: TestApi;
  let apiKey: string;

  beforeAll(async () => {
    api = await startTestApi({ env: { SEARCH_CACHE_SECONDS: "0" } });
    ({ apiKey } = await api.createAccount());
    const prisma = api.resources.database.prisma;
    await seedCatalogue(prisma, { count: 3000, seed: 21, vocabulary: "realistic" });
    // Every image's terms with their BM25 weights, straight from its text: what the brute force scores.
    await prisma.$executeRawUnsafe(`
      CREATE TABLE brute_postings AS
      SELECT i.id AS image_id, i.free, x.term, x.impact FROM images i
      CROSS JOIN LATERAL imagehub_search_impacts(i.search_document) x WHERE i.source = 'catalogue'`);
    await prisma.$executeRawUnsafe("CREATE INDEX ON brute_postings (term)");
  });
  afterAll(() => api.close());

  /**
   * Every matching image's score: summed over the search's words (a set of stems counted once), the best of
   * the word's terms' idf × weight, idf = ln(1 + (N − n + 0.5) / (n + 0.5)) over the whole catalogue.
   */
  async function bruteForce(words: string[], freeOnly: boolean): Promise<Map<string, number>> {
    const rows = await api.resources.database.prisma.$queryRawUnsafe<{ image_id: string; score: number }[]>(
      `WITH catalogue AS (SELECT count(DISTINCT image_id)::float8 AS n FROM brute_postings),
       typed AS (
         SELECT w.position, array_agg(DISTINCT lexeme ORDER BY lexeme) AS lexemes
         FROM unnest($1::text[]) WITH ORDINALITY AS w(word, position)
         CROSS JOIN LATERAL unnest(tsvector_to_array(
           to_tsvector('imagehub_en', w.word) || to_tsvector('imagehub_fr', w.word))) AS lexeme
         WHERE EXISTS (SELECT 1 FROM brute_postings p WHERE p.term = lexeme)
         GROUP BY w.position),
       words AS (SELECT DISTINCT lexemes FROM typed),
       idf AS (
         SELECT term, ln(1 + ((SELECT n FROM catalogue) - count(*) + 0.5) / (count(*) + 0.5)) AS idf
         FROM brute_postings WHERE term IN (SELECT unnest(lexemes) FROM words) GROUP BY term),
       best AS (
         SELECT p.image_id, w.lexemes, max(i.idf * p.impact) AS score
         FROM words w JOIN brute_postings p ON p.term = ANY(w.lexemes) JOIN idf i ON i.term = p.term
         WHERE p.free OR NOT $2
         GROUP BY p.image_id, w.lexemes)
       SELECT image_id::text, sum(score)::float8 AS score FROM best GROUP BY image_id`,
      words,
      freeOnly,
    );
    return new Map(rows.map((row) => [row.image_id, row.score]));
  }

  it.each(randomSearches(200))("puts the brute force's top 20 on page 1: %j", async (body) => {
    const response = await api.request("/v1/images/search", { apiKey, method: "POST", json: body });
    expect(response.status).toBe(200);
    const found = (await readJson(response)) as Found;
    const scores = await bruteForce(splitWords(body.search), body.filterFree);
    // No word of it is the catalogue's: the search is corrected instead (see the misspelled word above).
    if (scores.size === 0) return;
    const best = [...scores.values()].sort((a, b) => b - a).slice(0, 20);
    expect(found.filteredResults, body.search).toBe(scores.size);
    // Ties aside: the page's images score, rank by rank, what the brute force's top 20 score.
    const pageScores = found.images.map((image) => scores.get(image.id) ?? Number.NaN);
    expect(pageScores.length, body.search).toBe(best.length);
    for (const [rank, score] of pageScores.entries()) {
      expect(score, `${body.search} #${rank}`).toBeCloseTo(best[rank] as number, 6);
    }
  });
});
