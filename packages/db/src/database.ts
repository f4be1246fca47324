import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, open, readFile, rm } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { type Prisma, PrismaClient } from "./generated/prisma/client.js";
import { migrate } from "./migrator.js";
import { narrowToOwner } from "./owner-only.js";
import { pgliteSession, pgSession } from "./sql-session.js";

export interface QueryEvent {
  sql: string;
  /** The bound parameters, as JSON. */
  params: string;
  durationMs: number;
}

/**
 * The connections a process opens unless told otherwise: twice this host's cores, PostgreSQL's rule of thumb
 * for a database on the same host. Busier backends than cores only take turns on them: on 2 cores, an
 * uncached search cost PostgreSQL 1.2 ms of CPU at 10 connections and 0.8 ms at 4 (bench/RESULTS.md).
 */
export const DEFAULT_POOL_SIZE = 2 * availableParallelism();

export type DatabaseOptions =
  /** A PostgreSQL server: the production setting, shared by every API and worker process. */
  (
    | {
        url: string;
        poolSize?: number;
        /** A new connection not made within this time fails (and the request with it), default 5,000 ms. */
        connectTimeoutMs?: number;
      }
    /** An embedded PGlite database in a folder: one process owns it. */
    | { dataDir: string }
  ) & {
    /** Called with every statement the client sends (tracing, and benchmarks that replay them). */
    onQuery?: (event: QueryEvent) => void;
  };

export interface QueryOptions {
  /**
   * Prepares the statement once per connection and reuses it, skipping the server's parsing and planning:
   * for a fixed statement run over and over, whose best plan does not depend on its parameters' values (it
   * is planned once, generically). A statement's text names it, so a text built differently is prepared on
   * its own.
   */
  prepared?: boolean;
}

/** A LISTEN on a channel of the database. */
export interface Listener {
  /** False once closed or once its connection is lost: then listen again. */
  readonly isOpen: boolean;
  close(): Promise<void>;
}

export interface Database {
  readonly prisma: PrismaClient;
  readonly kind: "postgresql" | "pglite";
  /**
   * Runs one statement (built with `Prisma.sql`) on the driver itself, for the hottest paths: Prisma's
   * raw-query path costs 0.4 to 0.55 ms of CPU more per statement than the driver (measured on the
   * catalogue's searches), a third of what a search costs the API. Rows come as the driver reads them.
   */
  query<Row>(statement: Prisma.Sql, options?: QueryOptions): Promise<Row[]>;
  /**
   * Calls `onNotification` at each NOTIFY on `channel` (on PostgreSQL, over a connection of its own, outside
   * the pool).
   */
  listen(channel: string, onNotification: () => void): Promise<Listener>;
  /** Applies pending migrations; safe to call from several processes at once. */
  migrate(): Promise<string[]>;
  close(): Promise<void>;
}

/** The one way to get a database client: PostgreSQL when a URL is given, embedded PGlite otherwise. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const hasQueryEvents = options.onQuery !== undefined;
  const database =
    "url" in options
      ? openPostgres(options, hasQueryEvents)
      : await openPglite(options.dataDir, hasQueryEvents);
  if (!options.onQuery) return database;
  const onQuery = options.onQuery;
  database.prisma.$on("query" as never, (event: Prisma.QueryEvent) =>
    onQuery({ sql: event.query, params: event.params, durationMs: event.duration }),
  );
  return {
    ...database,
    async query<Row>(statement: Prisma.Sql, queryOptions?: QueryOptions) {
      const started = performance.now();
      try {
        return await database.query<Row>(statement, queryOptions);
      } finally {
        onQuery({
          sql: statement.text,
          params: JSON.stringify(statement.values),
          durationMs: performance.now() - started,
        });
      }
    },
  };
}

/** The name a prepared statement goes by on each connection: its text's, so that one name is one text. */
function preparedName(text: string): string {
  return `imagehub_${createHash("sha1").update(text).digest("base64url")}`;
}

/** Query events must be asked for when the client is made, and cost a little on every query. */
function createClient(adapter: PrismaPg | PrismaPGlite, hasQueryEvents: boolean): PrismaClient {
  return new PrismaClient({
    adapter,
    log: hasQueryEvents ? [{ level: "query", emit: "event" }] : [],
  }) as unknown as PrismaClient;
}

function openPostgres(
  {
    url,
    poolSize = DEFAULT_POOL_SIZE,
    connectTimeoutMs = 5_000,
  }: { url: string; poolSize?: number; connectTimeoutMs?: number },
  hasQueryEvents = false,
): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // Unbounded by default: a database that does not answer would hold every request for good.
    connectionTimeoutMillis: connectTimeoutMs,
    // One connection stays open through quiet periods: a health check after one finds it warm.
    min: 1,
    // Prepared statements (QueryOptions.prepared; Prisma prepares none) are planned once, not for each
    // execution: left to choose, PostgreSQL keeps planning statements whose arrays of parameters make
    // their generic plan's estimate look worse, for a millisecond or more each time. Without JIT: a generic
    // plan guesses a tenth of the table for a LIMIT it cannot see, and past jit_above_cost each execution of
    // a 0.5 ms catalogue page compiled itself for 35–70 ms; no statement of the app runs long enough to gain.
    options: "-c plan_cache_mode=force_generic_plan -c jit=off",
  });
  // An idle connection the server closed (restart, failover) is dropped from the pool and reported by
  // the next query that needs one; without a listener, Node would treat it as a crash.
  pool.on("error", () => undefined);
  const prisma = createClient(new PrismaPg(pool), hasQueryEvents);
  return {
    prisma,
    kind: "postgresql",
    async query<Row>(statement: Prisma.Sql, queryOptions?: QueryOptions) {
      const name = queryOptions?.prepared ? preparedName(statement.text) : undefined;
      const result = await pool.query({ name, text: statement.text, values: statement.values });
      return result.rows as Row[];
    },
    async listen(channel: string, onNotification: () => void) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
      let isOpen = true;
      // A lost connection (restart, failover) ends the listener; its owner listens again.
      const lost = () => {
        isOpen = false;
      };
      client.on("error", lost);
      client.on("end", lost);
      client.on("notification", onNotification);
      try {
        await client.connect();
        await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
      } catch (error) {
        await client.end().catch(() => undefined);
        throw error;
      }
      return {
        get isOpen() {
          return isOpen;
        },
        close: () => client.end(),
      };
    },
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

/** Another live process has the embedded database's folder open; a second one would write beside it. */
class DatabaseInUseError extends Error {}

/**
 * PGlite is one process's database: takes its folder for this process (a file naming it), or refuses when
 * another live process holds it. A holder that died without letting go does not count.
 */
async function claimPgliteFolder(dataDir: string): Promise<() => Promise<void>> {
  const holderFile = join(dataDir, "imagehub.pid");
  for (;;) {
    try {
      const file = await open(holderFile, "wx");
      await file.writeFile(String(process.pid));
      await file.close();
      return () => rm(holderFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = Number(await readFile(holderFile, "utf8").catch(() => ""));
    if (holder > 0 && holder !== process.pid && isAlive(holder)) {
      throw new DatabaseInUseError(
        `the embedded database in ${dataDir} is open in another process (pid ${holder}), such as a running imagehub server: stop it first`,
      );
    }
    await rm(holderFile, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function openPglite(dataDir: string, hasQueryEvents = false): Promise<Database> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const letGo = await claimPgliteFolder(dataDir);
  const isNew = !existsSync(join(dataDir, "PG_VERSION"));
  // Contrib extensions exist in PGlite only when loaded here; the catalogue's search needs these two.
  const db = await PGlite.create(dataDir, { extensions: { pg_trgm, unaccent } });
  // A new database's files (its WAL will carry secrets) are written 0666 by PGlite's initdb whatever the
  // umask: narrowed before anything is stored, inside a folder only its owner can enter meanwhile.
  if (isNew) await narrowToOwner(dataDir);
  const prisma = createClient(new PrismaPGlite(db), hasQueryEvents);
  return {
    prisma,
    kind: "pglite",
    // PGlite runs it between transactions, never inside one that Prisma has open. In process, a statement
    // costs no round trip to prepare: `prepared` changes nothing here.
    async query<Row>(statement: Prisma.Sql) {
      const result = await db.query(statement.text, statement.values);
      return result.rows as Row[];
    },
    async listen(channel: string, onNotification: () => void) {
      const unlisten = await db.listen(channel, onNotification);
      let isOpen = true;
      return {
        get isOpen() {
          return isOpen;
        },
        async close() {
          isOpen = false;
          await unlisten();
        },
      };
    },
    migrate: () => migrate(pgliteSession(db)),
    async close() {
      await prisma.$disconnect();
      await db.close();
      await letGo();
    },
  };
}
