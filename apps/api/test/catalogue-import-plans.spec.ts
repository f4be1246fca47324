import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explainedPlan, genericPlanSession, nodesOf } from "../../../tests/support/query-plans.js";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { selectByExternalIds } from "../src/catalogue/catalogue.repository.js";

/**
 * An import looks its batch's external ids up in the catalogue at every batch, by a prepared statement whose
 * plan is made at its first run, into an empty catalogue, and kept (no ANALYZE in between, as on a new
 * database or with autovacuum off): that plan must still find each image by its key once the catalogue is
 * large, not read it whole a batch.
 */
describe("an import's lookup of its batch's external ids", () => {
  let database: TestDatabase;
  let session: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    session = await genericPlanSession(database.url);
  });
  afterAll(async () => {
    await session.end();
    await database.drop();
  });

  it("finds each image by the external id's index, with the plan made while the catalogue was empty", async () => {
    await session.query(`PREPARE by_external_ids AS ${selectByExternalIds([]).text}`);
    await session.query("EXECUTE by_external_ids('{line-0}')");
    await session.query("BEGIN");
    await session.query("SET LOCAL imagehub.search_index = 'deferred'");
    await session.query(
      `INSERT INTO images (id, external_id, titles, tags, width, height)
       SELECT gen_random_uuid(), 'line-' || n, jsonb_build_object('en', 'image ' || n), ARRAY['tag'], 1024, 768
       FROM generate_series(1, 5000) n`,
    );
    await session.query("COMMIT");

    // Two of the catalogue's ids, and one it does not hold.
    const wanted = "'{line-17,line-4242,line-9999}'";
    const nodes = nodesOf(await explainedPlan(session, `EXECUTE by_external_ids(${wanted})`));
    expect(nodes.filter((node) => node["Relation Name"] === "images")).toEqual([
      expect.objectContaining({ "Node Type": "Index Scan", "Index Name": "images_external_id_key" }),
    ]);
    const found = await session.query<{ externalId: string }>(`EXECUTE by_external_ids(${wanted})`);
    expect(found.rows.map((row) => row.externalId).sort()).toEqual(["line-17", "line-4242"]);
  });
});
