import pg from "pg";
import { describe, expect, it } from "vitest";
import { until } from "../../../tests/support/until.js";
import { localDeliveryApi } from "../../../tests/support/webhooks-api.js";
import { WebhooksRepository } from "../src/webhooks/webhooks.repository.js";

describe("webhook rows taken in one order", () => {
  const { api } = localDeliveryApi();

  it("records a failed attempt beside an unsubscribe holding the webhook's row, without a deadlock", async () => {
    const { accountId } = await api().createAccount();
    const { prisma } = api().resources.database;
    const webhook = await prisma.webhook.create({
      data: { accountId, url: "http://127.0.0.1:9/hooks", events: ["print.completed"], secret: "whsec_test" },
    });
    // Relayed already and due tomorrow: neither the relay nor a sweep touches it meanwhile.
    const event = await prisma.outboxEvent.create({
      data: { accountId, webhookId: webhook.id, type: "test", payload: {}, relayedAt: new Date() },
    });
    await prisma.webhookDelivery.create({
      data: { eventId: event.id, webhookId: webhook.id, nextAttemptAt: new Date(Date.now() + 86_400_000) },
    });

    // An unsubscribe's first step: the webhook's row, locked until its deliveries are deleted too.
    const unsubscribing = new pg.Client({ connectionString: api().database.url });
    await unsubscribing.connect();
    try {
      await unsubscribing.query("BEGIN");
      await unsubscribing.query("SELECT id FROM webhooks WHERE id = $1 FOR UPDATE", [webhook.id]);
      const recorded = api()
        .app.get(WebhooksRepository)
        .recordFailure({
          eventId: event.id,
          webhookId: webhook.id,
          attempt: 1,
          statusCode: undefined,
          durationMs: 5,
          error: "connect ECONNREFUSED",
          retryInSeconds: 60,
          reasonToDisable: () => undefined,
        });
      const outcome = recorded.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      await until(
        async () =>
          (
            await unsubscribing.query(
              "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
            )
          ).rowCount !== 0,
        { what: "the attempt's transaction waiting for the webhook's row" },
      );
      await unsubscribing.query("DELETE FROM webhooks WHERE id = $1", [webhook.id]);
      await unsubscribing.query("COMMIT");
      expect(await outcome).toEqual({ value: { isDisabled: true } });
    } finally {
      await unsubscribing.end();
    }
    expect(await prisma.webhookAttempt.count({ where: { webhookId: webhook.id } })).toBe(0);
  });
});
