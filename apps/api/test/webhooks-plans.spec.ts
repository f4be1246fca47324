import { Prisma } from "@imagehub/db";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { findDeliveries, recordSuccesses, relay } from "../src/webhooks/webhook.statements.js";

/** A statement's parameter written as a literal, for EXECUTE. */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `'{${value.map((item) => item ?? "NULL").join(",")}}'`;
  return `'${String(value)}'`;
}

describe("the delivery path's statements", () => {
  let database: TestDatabase;
  const client = () =>
    new pg.Client({ connectionString: database.url, options: "-c plan_cache_mode=force_generic_plan" });
  let session: pg.Client;
  let webhookId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    session = client();
    await session.connect();
    const { rows } = await session.query<{ id: string }>(
      `WITH account AS (INSERT INTO accounts (id, email) VALUES (gen_random_uuid(), 'plans@example.test') RETURNING id)
       INSERT INTO webhooks (id, account_id, url, events, secret)
       SELECT gen_random_uuid(), id, 'https://hooks.example.test/in', '{print.completed}', 'whsec_plans' FROM account
       RETURNING id`,
    );
    webhookId = (rows[0] as { id: string }).id;
  });
  afterAll(async () => {
    await session.end();
    await database.drop();
  });

  /** Delivers `count` new events to the webhook; answers their ids. */
  async function addDeliveries(count: number): Promise<string[]> {
    const { rows } = await session.query<{ id: string }>(
      `WITH events AS (
         INSERT INTO outbox_events (id, account_id, type, payload, relayed_at)
         SELECT gen_random_uuid(), account_id, 'print.completed', '{}', now() FROM webhooks, generate_series(1, $2::int)
         WHERE webhooks.id = $1 RETURNING id)
       INSERT INTO webhook_deliveries (event_id, webhook_id) SELECT id, $1 FROM events RETURNING event_id AS id`,
      [webhookId, count],
    );
    return rows.map((row) => row.id);
  }

  /** Adds `count` unrelayed events of the webhook's account, of the type it chose. */
  async function addEvents(count: number): Promise<void> {
    await session.query(
      `INSERT INTO outbox_events (id, account_id, type, payload)
       SELECT gen_random_uuid(), account_id, 'print.completed', '{}' FROM webhooks, generate_series(1, $2::int)
       WHERE webhooks.id = $1`,
      [webhookId, count],
    );
  }

  /** A prepared statement's plan text as EXPLAIN ANALYZE prints it, run with `values`. */
  async function explained(name: string, values: unknown[]): Promise<string> {
    const { rows } = await session.query<{ "QUERY PLAN": string }>(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE ${name}(${values.map(literal).join(", ")})`,
    );
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  }

  /**
   * The plan a prepared statement runs by, made at its first run while the tables held one delivery and kept
   * (no ANALYZE in between, as on a new database or with autovacuum off), once the webhook has many.
   */
  async function keptPlan(statement: (eventIds: string[]) => Prisma.Sql): Promise<string> {
    const name = `plan_${Math.random().toString(36).slice(2)}`;
    const first = statement(await addDeliveries(1));
    await session.query(`PREPARE ${name} AS ${first.text}`);
    await session.query(`EXECUTE ${name}(${first.values.map(literal).join(", ")})`);
    await addDeliveries(2_000);
    const group = statement(await addDeliveries(100));
    return explained(name, group.values);
  }

  it("reads a group's deliveries one by one by their keys, however many the webhook has", async () => {
    const plan = await keptPlan((eventIds) => findDeliveries(webhookId, eventIds));
    expect(plan).not.toMatch(/Seq Scan on webhook_deliveries|webhook_deliveries_webhook_id_idx/);
  });

  it("records a group's successes one delivery at a time, however many the webhook has", async () => {
    const plan = await keptPlan((eventIds) =>
      recordSuccesses(
        eventIds.map((eventId) => ({ eventId, webhookId, attempt: 1, statusCode: 204, durationMs: 3 })),
      ),
    );
    expect(plan).not.toMatch(/Seq Scan on webhook_deliveries|webhook_deliveries_webhook_id_idx/);
  });

  it("relays a batch event by event and webhook by webhook, however large the outbox and the deliveries grow", async () => {
    const statement = relay(500);
    await session.query(`PREPARE relay_kept AS ${statement.text}`);
    // Planned while the outbox holds a single event (a new database), then kept.
    await addEvents(1);
    await session.query(`EXECUTE relay_kept(${statement.values.map(literal).join(", ")})`);
    await addDeliveries(2_000);
    await addEvents(100);
    const plan = await explained("relay_kept", statement.values);
    expect(plan).not.toMatch(/Seq Scan on (outbox_events|webhook_deliveries)/);
    // Nor is a batch's part read again for each row of another.
    expect(plan).not.toMatch(/CTE Scan on \w+ \(actual rows=\d+ loops=([2-9]|\d{2,})\)/);
    const { rows } = await session.query<{ unrelayed: number; undelivered: number }>(
      `SELECT count(*) FILTER (WHERE relayed_at IS NULL)::int AS unrelayed,
              count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id))::int
                AS undelivered
       FROM outbox_events e`,
    );
    // ANALYZE ran the statement: every event relayed, with its delivery to the webhook that chose its type.
    expect(rows[0]).toEqual({ unrelayed: 0, undelivered: 0 });
  });
});
