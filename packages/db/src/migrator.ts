import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { SqlSession } from "./sql-session.js";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../prisma/migrations/", import.meta.url));

/** The lock `prisma migrate deploy` takes, so that this runner and Prisma's never run at once. */
const PRISMA_MIGRATE_LOCK_KEY = 72707369;

/** Prisma's own bookkeeping table, created exactly as Prisma creates it. */
const CREATE_BOOKKEEPING_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(`${dir}/${name}/migration.sql`, "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

interface AppliedMigration extends Record<string, unknown> {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/**
 * Applies the migrations not applied yet, each in its own transaction, recording them in
 * `_prisma_migrations` like `prisma migrate deploy` does. Returns the names it applied.
 */
export async function migrate(session: SqlSession, migrations?: Migration[]): Promise<string[]> {
  const pending = migrations ?? (await readMigrations());
  await session.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK_KEY]);
  try {
    await session.exec(CREATE_BOOKKEEPING_TABLE);
    const rows = await session.query<AppliedMigration>(
      `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const applied = new Map(rows.map((row) => [row.migration_name, row]));
    const appliedNow: string[] = [];
    for (const migration of pending) {
      const previous = applied.get(migration.name);
      if (previous) {
        assertUnchanged(migration, previous);
        continue;
      }
      await applyOne(session, migration);
      appliedNow.push(migration.name);
    }
    return appliedNow;
  } finally {
    await session.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK_KEY]);
  }
}

function assertUnchanged(migration: Migration, applied: AppliedMigration): void {
  if (applied.finished_at === null) {
    throw new Error(
      `Migration ${migration.name} failed earlier and was left unfinished; resolve it before migrating again.`,
    );
  }
  if (applied.checksum !== migration.checksum) {
    throw new Error(
      `Migration ${migration.name} was modified after it was applied; add a new migration instead.`,
    );
  }
}

async function applyOne(session: SqlSession, migration: Migration): Promise<void> {
  await session.exec("BEGIN");
  try {
    await session.exec(migration.sql);
    await session.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), now(), 1)`,
      [randomUUID(), migration.checksum, migration.name],
    );
    await session.exec("COMMIT");
  } catch (error) {
    await session.exec("ROLLBACK");
    throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
  }
}
