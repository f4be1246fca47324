import { mkdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "./generated/prisma/client.js";
import { migrate } from "./migrator.js";
import { pgliteSession, pgSession } from "./sql-session.js";

export type DatabaseOptions =
  /** A PostgreSQL server: the production setting, shared by every API and worker process. */
  | { url: string; poolSize?: number }
  /** An embedded PGlite database in a folder: one process owns it. */
  | { dataDir: string };

export interface Database {
  readonly prisma: PrismaClient;
  readonly kind: "postgresql" | "pglite";
  /** Applies pending migrations; safe to call from several processes at once. */
  migrate(): Promise<string[]>;
  close(): Promise<void>;
}

/** The one way to get a database client: PostgreSQL when a URL is given, embedded PGlite otherwise. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return "url" in options ? openPostgres(options.url, options.poolSize) : openPglite(options.dataDir);
}

function openPostgres(url: string, poolSize = 10): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    kind: "postgresql",
    async migrate() {
      // One dedicated connection: the advisory lock and the transactions belong to a session.
      const client = await pool.connect();
      try {
        return await migrate(pgSession(client));
      } finally {
        client.release();
      }
    },
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

async function openPglite(dataDir: string): Promise<Database> {
  await mkdir(dataDir, { recursive: true });
  // Contrib extensions exist in PGlite only when loaded here; the catalogue's search needs these two.
  const db = await PGlite.create(dataDir, { extensions: { pg_trgm, unaccent } });
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(db) });
  return {
    prisma,
    kind: "pglite",
    migrate: () => migrate(pgliteSession(db)),
    async close() {
      await prisma.$disconnect();
      await db.close();
    },
  };
}
