import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { openDatabase } from "../src/database.js";
import { type Migration, migrate, readMigrations } from "../src/migrator.js";
import { pgSession } from "../src/sql-session.js";

function migration(name: string, sql: string): Migration {
  return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
}

describe("migrate on PostgreSQL", () => {
  let database: TestDatabase;
  let client: pg.Client;

  beforeEach(async () => {
    database = await createTestDatabase({ migrated: false });
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterEach(async () => {
    await client.end();
    await database.drop();
  });

  it("is applied by npm run db:migrate's command to DATABASE_URL", async () => {
    const command = fileURLToPath(new URL("../dist/migrate.cli.js", import.meta.url));
    const run = () =>
      promisify(execFile)(process.execPath, [command], {
        env: { ...process.env, DATABASE_URL: database.url },
      });
    const all = await readMigrations();
    expect((await run()).stdout.trim()).toBe(`applied ${all.map((each) => each.name).join(", ")}`);
    expect((await run()).stdout.trim()).toBe("the database is up to date");
  });

  it("applies every migration of the folder once, in order", async () => {
    const all = await readMigrations();
    expect(await migrate(pgSession(client))).toEqual(all.map((each) => each.name));
    expect(await migrate(pgSession(client))).toEqual([]);
  });

  it("records migrations in _prisma_migrations as prisma migrate deploy does", async () => {
    await migrate(pgSession(client));
    const { rows } = await client.query(
      `SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    const all = await readMigrations();
    expect(rows).toEqual(
      all.map((each) => ({
        migration_name: each.name,
        checksum: createHash("sha256").update(each.sql).digest("hex"),
        finished_at: expect.any(Date),
        rolled_back_at: null,
        applied_steps_count: 1,
      })),
    );
  });

  it("refuses to go on when an applied migration was edited", async () => {
    await migrate(pgSession(client), [migration("001_a", "CREATE TABLE a (id int)")]);
    await expect(
      migrate(pgSession(client), [migration("001_a", "CREATE TABLE a (id bigint)")]),
    ).rejects.toThrow(/001_a was modified after it was applied/);
  });

  it("rolls a failing migration back whole and records nothing", async () => {
    const failing = migration("002_b", "CREATE TABLE b (id int); SELECT * FROM missing_table;");
    await expect(
      migrate(pgSession(client), [migration("001_a", "CREATE TABLE a (id int)"), failing]),
    ).rejects.toThrow(/002_b failed/);
    const { rows } = await client.query(`SELECT to_regclass('b') AS b, to_regclass('a') AS a`);
    expect(rows[0]).toEqual({ a: "a", b: null });
    const names = await client.query(`SELECT migration_name FROM "_prisma_migrations"`);
    expect(names.rows.map((row) => row.migration_name)).toEqual(["001_a"]);
  });

  it("applies each migration once when several processes start together", async () => {
    const others = await Promise.all([1, 2, 3].map(() => new pg.Client({ connectionString: database.url })));
    await Promise.all(others.map((other) => other.connect()));
    try {
      const results = await Promise.all(others.map((other) => migrate(pgSession(other))));
      expect(results.flat()).toEqual((await readMigrations()).map((each) => each.name));
    } finally {
      await Promise.all(others.map((other) => other.end()));
    }
  });
});

describe("migrate on PGlite", () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "imagehub-pglite-"));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  // A new PGlite database runs initdb in WebAssembly first: seconds alone, half a minute on a busy machine.
  it("runs the same migrations unchanged and keeps them across reopening", { timeout: 120_000 }, async () => {
    const first = await openDatabase({ dataDir });
    expect(await first.migrate()).toEqual((await readMigrations()).map((each) => each.name));
    await first.close();
    const second = await openDatabase({ dataDir });
    expect(await second.migrate()).toEqual([]);
    await second.close();
  });
});
