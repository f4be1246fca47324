import { fileURLToPath } from "node:url";
import { migrate, pgSession, readMigrations } from "@imagehub/db";
import pg from "pg";
import type { Logger } from "./bot-logger.js";
import type { BotStore, StoreCollection } from "./bot-store.js";
import type { ChatPlatform } from "./chat-target.js";

/** The bots' own migrations, applied by packages/db's runner into the bots' schema. */
const MIGRATIONS_DIR = fileURLToPath(new URL("../migrations/", import.meta.url));
const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

export interface PostgresStoreOptions {
  /** imagehub's PostgreSQL server (or another). */
  url: string;
  /** The bots' own schema, created and migrated at start. */
  schema: string;
  platform: ChatPlatform;
  poolSize?: number;
  /** Told when PostgreSQL closes a connection of the pool (a restart, a failover, an administrator). */
  logger?: Pick<Logger, "warn">;
}

/**
 * A bot's state in PostgreSQL, shared by every replica of the bot: one row per record, in the bots' own
 * schema (migrated at start like the API's, by packages/db's runner). `update` holds a transaction-scoped
 * advisory lock on the record's key, so replicas change one record one at a time.
 */
export class PostgresStore implements BotStore {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly platform: ChatPlatform,
  ) {}

  static async open({
    url,
    schema,
    platform,
    poolSize = 5,
    logger,
  }: PostgresStoreOptions): Promise<PostgresStore> {
    if (!SCHEMA_NAME.test(schema)) throw new Error(`not a schema name: ${schema}`);
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    try {
      await setup.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await setup.query(`SET search_path TO ${schema}`);
      await migrate(pgSession(setup), await readMigrations(MIGRATIONS_DIR));
    } finally {
      await setup.end();
    }
    const pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      options: `-c search_path=${schema}`,
      application_name: `imagehub-${platform}-bot`,
    });
    // An idle connection that PostgreSQL closes is an 'error' event of the pool, which ends the process when
    // unheard; the pool drops that connection and opens another when next asked.
    pool.on("error", (error) =>
      logger?.warn(
        { err: error },
        "PostgreSQL closed a connection of the bot's store; another is opened when needed",
      ),
    );
    return new PostgresStore(pool, platform);
  }

  collection<T>(name: string): StoreCollection<T> {
    const where = [this.platform, name];
    const read = async (client: pg.ClientBase | pg.Pool, key: string) => {
      const { rows } = await client.query<{ value: T }>(
        "SELECT value FROM bot_records WHERE platform = $1 AND collection = $2 AND key = $3",
        [...where, key],
      );
      return rows[0]?.value;
    };
    const write = async (client: pg.ClientBase | pg.Pool, key: string, value: T) => {
      await client.query(
        `INSERT INTO bot_records (platform, collection, key, value) VALUES ($1, $2, $3, $4)
         ON CONFLICT (platform, collection, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
        [...where, key, JSON.stringify(value)],
      );
    };
    return {
      get: (key) => read(this.pool, key),
      values: async () => {
        const { rows } = await this.pool.query<{ value: T }>(
          "SELECT value FROM bot_records WHERE platform = $1 AND collection = $2 ORDER BY updated_at",
          where,
        );
        return rows.map((row) => row.value);
      },
      set: (key, value) => write(this.pool, key, value),
      delete: async (key) => {
        await this.pool.query(
          "DELETE FROM bot_records WHERE platform = $1 AND collection = $2 AND key = $3",
          [...where, key],
        );
      },
      update: (key, change) =>
        this.locked(`${name}/${key}`, async (client) => {
          const next = change(await read(client, key));
          if (next !== undefined) await write(client, key, next);
          return next;
        }),
      deleteIf: (key, isDone) =>
        this.locked(`${name}/${key}`, async (client) => {
          const current = await read(client, key);
          if (current === undefined || !isDone(current)) return;
          await client.query("DELETE FROM bot_records WHERE platform = $1 AND collection = $2 AND key = $3", [
            ...where,
            key,
          ]);
        }),
    };
  }

  /** Runs `work` in a transaction holding the advisory lock of one record. */
  private async locked<R>(record: string, work: (client: pg.PoolClient) => Promise<R>): Promise<R> {
    const client = await this.pool.connect();
    // A connection closed while checked out fails the query under way; its 'error' event must not end the process.
    const ignore = () => {};
    client.on("error", ignore);
    let failure: Error | undefined;
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
        `${this.platform}/${record}`,
      ]);
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch((rollbackError: Error) => {
        failure = rollbackError;
      });
      throw error;
    } finally {
      client.off("error", ignore);
      // A connection that could not roll back is broken: the pool discards it rather than lend it again.
      client.release(failure);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
