import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { until } from "../../../tests/support/until.js";
import { createBotLogger } from "../src/bot-logger.js";
import { PostgresStore } from "../src/postgres-store.js";

describe("PostgresStore", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("keeps serving after PostgreSQL closes its connections (a restart, a failover)", async () => {
    const warnings: string[] = [];
    const logger = createBotLogger("test", "warn", {
      write: (line: string) => {
        warnings.push(JSON.parse(line).msg);
      },
    });
    const store = await PostgresStore.open({
      url: database.url,
      schema: "imagehub_bots",
      platform: "discord",
      logger,
    });
    try {
      const counters = store.collection<{ count: number }>("counters");
      const increment = () => counters.update("a", (current) => ({ count: (current?.count ?? 0) + 1 }));
      await counters.set("a", { count: 1 });
      await increment();

      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      const { rowCount } = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'imagehub-discord-bot'",
      );
      await admin.end();
      expect(rowCount).toBeGreaterThan(0);
      await until(() => warnings.length > 0, { what: "the closed connections to be noticed" });

      expect(await counters.get("a")).toEqual({ count: 2 });
      expect(await increment()).toEqual({ count: 3 });
    } finally {
      await store.close();
    }
  });
});
