import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explainedPlan, genericPlanSession, nodesOf } from "../../../tests/support/query-plans.js";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { listedPage } from "../src/catalogue/search/search.statements.js";

const IMAGES = 3_000;
/** Two thirds of the way into the catalogue's images, and into its free ones (a third of them). */
const DEEP_OFFSET = { all: 2_000, free: 660 };

/** Each sort's order, written out: the page must be the one these give. */
const ORDER_BY = {
  newest: "created_at DESC, id DESC",
  oldest: "created_at ASC, id ASC",
  popular: "popularity DESC, id DESC",
};

/**
 * A page without keywords, deep in the catalogue: its cost must not grow with the rows before it. Prepared
 * and run by its generic plan (as the app's prepared statements end up), on a vacuumed catalogue.
 */
describe("a catalogue page without keywords", () => {
  let database: TestDatabase;
  let session: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    session = await genericPlanSession(database.url);
    await session.query("BEGIN");
    // Indexed later (search_index_pending): the index is not this spec's subject.
    await session.query("SET LOCAL imagehub.search_index = 'deferred'");
    await session.query(
      `INSERT INTO images (id, titles, tags, free, price, popularity, width, height, seed, created_at)
       SELECT gen_random_uuid(), jsonb_build_object('en', 'image ' || n), ARRAY['tag'], n % 3 = 0, 100, n % 97,
              1024, 768, n, now() - n * interval '1 minute'
       FROM generate_series(1, $1::int) n`,
      [IMAGES],
    );
    // A generation's images share the table and are never listed.
    await session.query(
      `INSERT INTO images (id, source, titles, free, price, width, height, seed)
       SELECT gen_random_uuid(), 'generation', '{"en": "generated"}', false, 100, 1024, 768, n
       FROM generate_series(1, $1::int) n`,
      [IMAGES],
    );
    await session.query("COMMIT");
    await session.query("VACUUM (ANALYZE) images");
  });

  afterAll(async () => {
    await session.end();
    await database.drop();
  });

  for (const sort of ["newest", "oldest", "popular"] as const) {
    for (const freeOnly of [false, true]) {
      it(`reads the offset from the ${sort} order's index, not the rows (${freeOnly ? "free images" : "all"})`, async () => {
        const offset = DEEP_OFFSET[freeOnly ? "free" : "all"];
        const statement = listedPage({ sort, freeOnly, limit: 20, offset });
        const name = `listed_${sort}_${freeOnly}`;
        await session.query(`PREPARE ${name} AS ${statement.text}`);
        const parameters = statement.values.map((value) => `'${String(value)}'`).join(", ");
        const plan = await explainedPlan(session, `EXECUTE ${name}(${parameters})`);
        // The offset and the page are read from the index alone: no image row before the page is fetched.
        const walk = nodesOf(plan).find((node) => node["Actual Rows"] === offset + 20);
        expect(walk).toMatchObject({ "Node Type": "Index Only Scan", "Heap Fetches": 0 });
        // Then the page's rows are looked up by id, whatever the plan guessed of the page's size.
        const readsAllImages = nodesOf(plan).filter(
          (node) => node["Node Type"] === "Seq Scan" && node["Relation Name"] === "images",
        );
        expect(readsAllImages).toEqual([]);
        const page = await session.query<{ id: string }>(statement.text, statement.values);
        const expected = await session.query<{ id: string }>(
          `SELECT id FROM images WHERE source = 'catalogue' ${freeOnly ? "AND free" : ""}
           ORDER BY ${ORDER_BY[sort]} LIMIT 20 OFFSET ${offset}`,
        );
        expect(page.rows.map((row) => row.id)).toEqual(expected.rows.map((row) => row.id));
      });
    }
  }
});
