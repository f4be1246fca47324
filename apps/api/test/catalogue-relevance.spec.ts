import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImage } from "../../../tests/support/images.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { seedCatalogue } from "../src/catalogue/seed/catalogue-seeder.js";

type Found = { filteredResults: number; images: { id: string }[] };

/**
 * Relevance over a seeded catalogue of 4,000 images (about 1,400 hold "animal") and a few known
 * images written after it, so that they are the last rows PostgreSQL would come across. Each class of
 * images whose count is a bound is found both ways a large catalogue finds them: by reading its pivot's
 * postings, and through the index of images' weighted terms.
 */
describe.each([
  ["classes read from their postings", "100000000"],
  ["bounded classes found through the weighted terms", "0"],
])("catalogue search relevance, %s", (_mode, intersectedPostings) => {
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
      env: { SEARCH_CACHE_SECONDS: "0", SEARCH_INTERSECTED_POSTINGS: intersectedPostings },
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

  /**
   * Every image matching any word, ranked by brute force over all the postings: those holding every word
   * first, then BM25 (each word's idf times its best term's weight in the image), newest, id. The sum is
   * rounded: sum() adds in no fixed order, and equal weights must give equal scores.
   */
  async function rankedByBruteForce(search: string, freeOnly: boolean, limit: number, offset: number) {
    const rows = await api.resources.database.prisma.$queryRawUnsafe<{ image_id: string }[]>(
      `WITH catalogue AS (SELECT sum(documents)::int AS documents FROM search_catalogue_size),
       words AS (
         SELECT w.position, array_agg(t.id) AS terms, least(sum(t.documents), (SELECT documents FROM catalogue)) AS documents
         FROM unnest(regexp_split_to_array($1, ' ')) WITH ORDINALITY AS w(word, position)
         CROSS JOIN LATERAL unnest(tsvector_to_array(
           to_tsvector('imagehub_en', w.word) || to_tsvector('imagehub_fr', w.word))) AS lexeme
         JOIN search_terms t ON t.term = lexeme AND t.documents > 0
         GROUP BY w.position),
       weights AS (
         SELECT p.image_id, w.position, max(p.impact) AS weight, max(p.created_at) AS created_at,
                ln((1 + ((SELECT documents FROM catalogue) - w.documents + 0.5) / (w.documents + 0.5))::float8) AS idf
         FROM words w JOIN search_postings p ON p.term_id = ANY(w.terms) AND (p.free OR NOT $2)
         GROUP BY p.image_id, w.position, w.documents)
       SELECT image_id FROM weights GROUP BY image_id
       ORDER BY count(*) = (SELECT count(*) FROM words) DESC, round(sum(idf * weight)::numeric, 6) DESC, max(created_at) DESC,
                image_id DESC
       LIMIT $3 OFFSET $4`,
      search,
      freeOnly,
      limit,
      offset,
    );
    return rows.map((row) => row.image_id);
  }

  it.each([
    ["animal forest", false, 0],
    ["animal forest", false, 180],
    ["fox snow", false, 0],
    ["renard forêt enneigée", false, 0],
    ["snowy mountain lake", false, 40],
    ["forest lake", true, 0],
    ["forest lake", false, 300],
    // Past the images holding every word: two words' counts are exact, and the classes before are skipped.
    ["animal forest", false, 1500],
    // Three words' counts are bounds: the classes before the page are read.
    ["animal forest lake", false, 1500],
    ["animal forest lake", true, 100],
    ["fox forest snow lake", false, 0],
    // A word of two terms (English "mediev", French "medieval"), and a word given twice (one term).
    ["medieval castle", false, 0],
    ["pine forest", false, 200],
    ["swan swans", false, 0],
  ])(
    "ranks %s (free only: %s, offset %d) exactly as a brute-force ranking of every match",
    async (words, freeOnly, offset) => {
      const { images } = await search({ search: words, filterFree: freeOnly, offset, limit: 40 });
      expect(images.length).toBeGreaterThan(0);
      expect(images.map((image) => image.id)).toEqual(await rankedByBruteForce(words, freeOnly, 40, offset));
    },
  );
});
