import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { type Database, openDatabase } from "../src/database.js";
import { Prisma } from "../src/index.js";

describe("the app's connections to PostgreSQL", () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: false });
    db = await openDatabase({ url: database.url });
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  it("plan prepared statements once, generically, and never compile them with JIT", async () => {
    // A generic plan guesses a tenth of a table's rows for a LIMIT given as a parameter: on a catalogue of a
    // million images its cost passes jit_above_cost, and each page of 20 rows would compile for tens of ms.
    const [settings] = await db.query<{ planCacheMode: string; jit: string }>(
      Prisma.sql`SELECT current_setting('plan_cache_mode') AS "planCacheMode", current_setting('jit') AS jit`,
      { prepared: true },
    );
    expect(settings).toEqual({ planCacheMode: "force_generic_plan", jit: "off" });
  });
});
