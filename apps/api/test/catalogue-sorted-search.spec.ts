import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImage } from "../../../tests/support/images.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { splitWords } from "../src/catalogue/search/query-planner.js";
import { seedCatalogue } from "../src/catalogue/seed/catalogue-seeder.js";
import { createRandom } from "../src/common/seeded-random.js";

type Found = { filteredResults: number; images: { id: string }[] };
type Sort = "newest" | "oldest" | "popular";

/** Each sort's order over the brute force's rows: the key, then the document number (the stated tie-break). */
const ORDERS: Record<Sort, string> = {
  newest: "i.created_at DESC, s.document DESC",
  oldest: "i.created_at ASC, s.document ASC",
  popular: "i.popularity DESC, s.document DESC",
};

/**
 * Keyword searches sorted by date or popularity, ordered in the API by the sort keys it keeps: against a
 * brute force in SQL over a model catalogue of 3,000 realistic images (many equal popularities, a third of
 * the dates equal by the day), and fresh after every kind of change, with the answer cache off.
 */
describe("catalogue search sorted by date or popularity", () => {
  let api: TestApi;
  let apiKey: string;

  async function search(body: Record<string, unknown>): Promise<Found> {
    const response = await api.request("/v1/images/search", { apiKey, method: "POST", json: body });
    expect(response.status).toBe(200);
    return (await readJson(response)) as Found;
  }

  const ids = (found: Found) => found.images.map((image) => image.id);

  beforeAll(async () => {
    api = await startTestApi({ env: { SEARCH_CACHE_SECONDS: "0" } });
    ({ apiKey } = await api.createAccount());
    const prisma = api.resources.database.prisma;
    await seedCatalogue(prisma, { count: 3000, seed: 31, vocabulary: "realistic" });
    await prisma.$executeRawUnsafe(
      "UPDATE images SET created_at = date_trunc('day', created_at) WHERE source = 'catalogue' AND seed % 3 = 0",
    );
  });
  afterAll(() => api.close());

  /** Every catalogue image holding any of the words' English or French stems, in the sort's order. */
  async function bruteForce(words: string[], sort: Sort, freeOnly: boolean): Promise<string[]> {
    const rows = await api.resources.database.prisma.$queryRawUnsafe<{ id: string }[]>(
      `SELECT i.id FROM images i JOIN search_documents s ON s.image_id = i.id
       WHERE i.source = 'catalogue' AND ($2::boolean IS FALSE OR i.free)
         AND tsvector_to_array(i.search_document) && ARRAY(
           SELECT lexeme FROM unnest($1::text[]) AS w(word)
           CROSS JOIN LATERAL unnest(tsvector_to_array(
             to_tsvector('imagehub_en', w.word) || to_tsvector('imagehub_fr', w.word))) AS lexeme)
       ORDER BY ${ORDERS[sort]}`,
      words,
      freeOnly,
    );
    return rows.map((row) => row.id);
  }

  /** Searches as users type them: 1–6 words of the titles and keywords of the catalogue's own images. */
  async function randomSearches(count: number) {
    const random = createRandom(9);
    const images = await api.resources.database.prisma.$queryRawUnsafe<{ text: string }[]>(
      `SELECT concat_ws(' ', titles->>'en', titles->>'fr', array_to_string(tags, ' ')) AS text
       FROM images WHERE source = 'catalogue' ORDER BY seed LIMIT $1`,
      count,
    );
    const sorts: Sort[] = ["newest", "oldest", "popular"];
    return images.map(({ text }, index) => {
      const pool = splitWords(text.toLowerCase());
      const words = Array.from(
        { length: 1 + Math.floor(random() * 6) },
        () => pool[Math.floor(random() * pool.length)] as string,
      );
      return {
        search: words.join(" "),
        sort: sorts[index % sorts.length] as Sort,
        filterFree: random() < 0.2,
        deep: random() < 0.3,
      };
    });
  }

  /** Words of the catalogue that between `fewest` and `most` images hold, in alphabetical order. */
  async function wordsHeldBy(fewest: number, most: number, count: number): Promise<string[]> {
    const rows = await api.resources.database.prisma.$queryRawUnsafe<{ word: string }[]>(
      `SELECT w.word FROM search_words w
       WHERE (SELECT count(*) FROM images i
              WHERE i.source = 'catalogue' AND tsvector_to_array(i.search_document) && tsvector_to_array(
                to_tsvector('imagehub_en', w.word) || to_tsvector('imagehub_fr', w.word))) BETWEEN $1 AND $2
       ORDER BY w.word LIMIT $3`,
      fewest,
      most,
      count,
    );
    expect(rows).toHaveLength(count);
    return rows.map((row) => row.word);
  }

  it("answers each sort's exact page and count, for 90 random searches, at the start and deeper", async () => {
    let compared = 0;
    for (const { search: keywords, sort, filterFree, deep } of await randomSearches(90)) {
      const expected = await bruteForce(splitWords(keywords), sort, filterFree);
      // Only stop words: corrected to the closest word, which the brute force does not do.
      if (expected.length === 0) continue;
      const offset = deep ? Math.floor(expected.length / 2) : 0;
      const found = await search({ search: keywords, sort, filterFree, offset, limit: 20 });
      expect({ keywords, sort, filterFree, count: found.filteredResults }).toEqual({
        keywords,
        sort,
        filterFree,
        count: expected.length,
      });
      expect(ids(found), `${keywords} (${sort}, offset ${offset})`).toEqual(
        expected.slice(offset, offset + 20),
      );
      if (expected.length > 20) compared += 1;
    }
    // Most searches match more than a page: the order, not only the set, was compared.
    expect(compared).toBeGreaterThan(45);
  });

  it("shows a purchase's new popularity at the next popular search", async () => {
    const [keywords = ""] = await wordsHeldBy(60, 300, 1);
    const before = await bruteForce([keywords], "popular", false);
    expect(before.length).toBeGreaterThan(40);
    expect(ids(await search({ search: keywords, sort: "popular", limit: 40 }))).toEqual(before.slice(0, 40));
    // The 40th image climbs above the first: bought by enough accounts.
    const climber = before[39] as string;
    const [{ popularity: top } = { popularity: 0 }] = await api.resources.database.prisma.$queryRawUnsafe<
      { popularity: number }[]
    >("SELECT popularity FROM images WHERE id = $1::uuid", before[0]);
    const buyers = Math.max(1, top + 1 - (await popularityOf(climber)));
    await api.resources.database.prisma.$executeRawUnsafe(
      "UPDATE images SET popularity = popularity + $2 WHERE id = $1::uuid",
      climber,
      buyers - 1,
    );
    const { apiKey: buyer } = await api.createAccount();
    const bought = await api.request("/v1/images/buy", {
      apiKey: buyer,
      method: "POST",
      json: { id: climber },
    });
    expect(bought.status).toBe(200);
    const after = await search({ search: keywords, sort: "popular", limit: 40 });
    expect(ids(after)[0]).toBe(climber);
    expect(ids(after)).toEqual((await bruteForce([keywords], "popular", false)).slice(0, 40));
  });

  async function popularityOf(id: string): Promise<number> {
    const [row] = await api.resources.database.prisma.$queryRawUnsafe<{ popularity: number }[]>(
      "SELECT popularity FROM images WHERE id = $1::uuid",
      id,
    );
    return row?.popularity ?? 0;
  }

  it("shows a change committed after a search that ran while its transaction was open", async () => {
    const [, keywords = ""] = await wordsHeldBy(60, 300, 2);
    const before = await bruteForce([keywords], "popular", false);
    const climber = before[before.length - 1] as string;
    const writer = new pg.Client(api.database.url);
    await writer.connect();
    try {
      // Its transaction starts, and takes its id, before the search reads the keys; it commits after.
      await writer.query("BEGIN");
      await writer.query("UPDATE images SET popularity = 1000000 WHERE id = $1::uuid", [climber]);
      expect(ids(await search({ search: keywords, sort: "popular" }))).toEqual(before.slice(0, 20));
      // Another transaction, started later, commits first: the keys read move past it.
      await api.resources.database.prisma.$executeRawUnsafe(
        "UPDATE images SET popularity = popularity + 1 WHERE id = $1::uuid",
        before[1],
      );
      await search({ search: keywords, sort: "popular" });
      await writer.query("COMMIT");
    } finally {
      await writer.end();
    }
    expect(ids(await search({ search: keywords, sort: "popular" }))[0]).toBe(climber);
  });

  it("places a new image and an image given a new date at once, and drops a deleted one", async () => {
    const prisma = api.resources.database.prisma;
    const [, , keywords = ""] = await wordsHeldBy(60, 300, 3);
    const oldest = await bruteForce([keywords], "oldest", false);
    expect(ids(await search({ search: keywords, sort: "newest" }))).toEqual(
      (await bruteForce([keywords], "newest", false)).slice(0, 20),
    );

    const added = await createImage(prisma, {
      en: keywords,
      fr: keywords,
      tags: [keywords],
      createdAt: new Date("2001-01-01T00:00:00Z"),
    });
    await prisma.$executeRawUnsafe(
      "UPDATE images SET created_at = now() + interval '1 day' WHERE id = $1::uuid",
      oldest[0],
    );
    await prisma.$executeRawUnsafe("DELETE FROM images WHERE id = $1::uuid", oldest[1]);

    const newest = await search({ search: keywords, sort: "newest" });
    expect(ids(newest)[0]).toBe(oldest[0]);
    expect(ids(await search({ search: keywords, sort: "oldest" }))[0]).toBe(added.id);
    expect(newest.filteredResults).toBe(oldest.length);
    expect(ids(newest)).toEqual((await bruteForce([keywords], "newest", false)).slice(0, 20));
    expect(ids(await search({ search: keywords, sort: "oldest", limit: 100 }))).not.toContain(oldest[1]);
  });

  it("reads every document's keys as a second process starts, so that its first sorted search reads only changes", async () => {
    const logLines: string[] = [];
    /** The documents each sort keys' read of the second process asked for: those numbered above this. */
    const readsAfter = () =>
      logLines
        .map((line) => JSON.parse(line) as { msg: string; sql?: string })
        .flatMap((entry) =>
          entry.msg === "sql" ? [/WHERE s\.document > (-?\d+)/.exec(entry.sql ?? "")] : [],
        )
        .flatMap((match) => (match ? [Number(match[1])] : []));
    const second = await startTestApi({
      env: { SEARCH_CACHE_SECONDS: "0", LOG_LEVEL: "trace", DATABASE_URL: api.database.url },
      logDestination: { write: (line: string) => void logLines.push(line) },
    });
    try {
      await expect.poll(readsAfter).toEqual([-1]);
      const [keywords = ""] = await wordsHeldBy(60, 300, 1);
      const { apiKey: secondKey } = await second.createAccount({ email: "second@example.test" });
      const response = await second.request("/v1/images/search", {
        apiKey: secondKey,
        method: "POST",
        json: { search: keywords, sort: "newest" },
      });
      expect(((await readJson(response)) as Found).images.map((image) => image.id)).toEqual(
        (await bruteForce([keywords], "newest", false)).slice(0, 20),
      );
      const [, next] = readsAfter();
      expect(next).toBeGreaterThan(0);
    } finally {
      await second.close();
    }
  });
});
