import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";

/** One database session (a single connection), enough for migrations and the test harness. */
export interface SqlSession {
  query<Row extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements. */
  exec(sql: string): Promise<void>;
}

export function pgSession(client: pg.ClientBase): SqlSession {
  return {
    async query<Row extends Record<string, unknown>>(sql: string, params: unknown[] = []) {
      const result = await client.query<Row>(sql, params);
      return result.rows;
    },
    async exec(sql) {
      await client.query(sql);
    },
  };
}

export function pgliteSession(db: PGlite): SqlSession {
  return {
    async query<Row extends Record<string, unknown>>(sql: string, params: unknown[] = []) {
      const result = await db.query<Row>(sql, params);
      return result.rows;
    },
    async exec(sql) {
      await db.exec(sql);
    },
  };
}
