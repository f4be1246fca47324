import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { until } from "../../../tests/support/until.js";

/** The channel the outbox's trigger notifies and the webhook relays listen to. */
const CHANNEL = "outbox_events";

describe("the outbox's notifications", () => {
  let database: TestDatabase;
  let writer: pg.Client;
  let listener: pg.Client;
  let notifications = 0;
  const accounts = { withWebhook: "", withoutWebhook: "" };

  beforeAll(async () => {
    database = await createTestDatabase();
    writer = new pg.Client({ connectionString: database.url });
    listener = new pg.Client({ connectionString: database.url });
    await Promise.all([writer.connect(), listener.connect()]);
    accounts.withWebhook = await insertAccount("hooked@example.test");
    accounts.withoutWebhook = await insertAccount("polling@example.test");
    await writer.query(
      `INSERT INTO webhooks (id, account_id, url, events, secret)
       VALUES (gen_random_uuid(), $1, 'https://hooks.example.test/in', '{print.completed}', 'whsec_notify')`,
      [accounts.withWebhook],
    );
    listener.on("notification", (message) => {
      if (message.channel === CHANNEL) notifications += 1;
    });
    await listener.query(`LISTEN ${CHANNEL}`);
  });

  afterAll(async () => {
    await Promise.all([writer.end(), listener.end()]);
    await database.drop();
  });

  async function insertAccount(email: string): Promise<string> {
    const { rows } = await writer.query<{ id: string }>(
      "INSERT INTO accounts (id, email) VALUES (gen_random_uuid(), $1) RETURNING id",
      [email],
    );
    return (rows[0] as { id: string }).id;
  }

  /** Commits one event of the account, in a transaction of its own. */
  async function commitEvent(accountId: string): Promise<void> {
    await writer.query(
      `INSERT INTO outbox_events (id, account_id, type, payload)
       VALUES (gen_random_uuid(), $1, 'print.progress', '{}')`,
      [accountId],
    );
  }

  it("wakes the relays for an event some webhook may receive, and not for the events of an account without one", async () => {
    await commitEvent(accounts.withoutWebhook);
    await commitEvent(accounts.withoutWebhook);
    await commitEvent(accounts.withWebhook);
    await until(() => notifications > 0, { what: "the notification of the webhook's account's event" });
    // Notifications come in commit order: once the last commit's has come, an earlier one would have too.
    await listener.query("SELECT 1");
    expect(notifications).toBe(1);
  });
});
