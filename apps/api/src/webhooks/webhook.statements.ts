import { Prisma } from "@imagehub/db";
import { WEBHOOK_DISABLED_EVENT } from "@imagehub/domain";

/** One event for one webhook. */
export interface DeliveryKey {
  eventId: string;
  webhookId: string;
}

/** An attempt made: to a delivery (its event, its webhook), what came back and how long it took. */
export interface AttemptRecord extends DeliveryKey {
  attempt: number;
  statusCode: number | undefined;
  durationMs: number;
}

/**
 * Statements run for every group of deliveries: prepared on the driver, planned once. Each looks rows up by
 * their keys, a plan that stays right however the tables grow after it is made.
 */
export const PREPARED = { prepared: true };

/**
 * Takes up to `limit` unrelayed events (locked: relays running at once take different ones), marks them
 * relayed and inserts their deliveries; selects the count of events taken and the deliveries to queue.
 * Prepared (it runs with every few events): each event and each webhook is found by its keys, a plan that
 * stays right however the outbox and the deliveries grow after it is made.
 */
export function relay(limit: number): Prisma.Sql {
  return Prisma.sql`
    WITH batch AS (
      SELECT id, account_id, type, webhook_id, payload->>'webhookId' AS about_webhook, created_at FROM outbox_events
      WHERE relayed_at IS NULL ORDER BY created_at, id LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), relayed AS (
      UPDATE outbox_events SET relayed_at = now() WHERE id = ANY (ARRAY(SELECT id FROM batch))
    ), inserted AS (
      INSERT INTO webhook_deliveries (event_id, webhook_id)
      SELECT batch.id, chosen.id FROM batch CROSS JOIN LATERAL (
        SELECT webhooks.id FROM webhooks WHERE webhooks.account_id = batch.account_id
          AND (webhooks.id = batch.webhook_id OR (batch.webhook_id IS NULL AND (
            batch.type = ANY (webhooks.events)
            OR (batch.type = ${WEBHOOK_DISABLED_EVENT} AND webhooks.id::text <> batch.about_webhook))))
        OFFSET 0
      ) chosen
      ON CONFLICT DO NOTHING
      RETURNING event_id, webhook_id
    ), queued AS (
      SELECT inserted.*, event.created_at FROM inserted
      CROSS JOIN LATERAL (SELECT created_at FROM outbox_events WHERE id = inserted.event_id OFFSET 0) event
      CROSS JOIN LATERAL (SELECT disabled_at FROM webhooks WHERE id = inserted.webhook_id OFFSET 0) webhook
      WHERE webhook.disabled_at IS NULL
    )
    SELECT counted.events, queued.event_id AS "eventId", queued.webhook_id AS "webhookId"
    FROM (SELECT count(*)::int AS events FROM batch) counted LEFT JOIN queued ON true
    ORDER BY queued.created_at, queued.event_id`;
}

/**
 * Selects the deliveries of these events to the webhook, with its endpoint and each event's payload as text.
 * Each event is looked up on its own by its keys (OFFSET 0 keeps the lookup from being merged into a join):
 * a prepared statement's plan is made once, maybe while the tables are small and unanalysed, and a plan
 * that read the webhook's deliveries and kept those of the group would read more with every delivery made.
 */
export function findDeliveries(webhookId: string, eventIds: readonly string[]): Prisma.Sql {
  return Prisma.sql`
    SELECT wanted.event_id AS "eventId", found.status::text AS status, found.attempts, w.url, w.secret,
      w.disabled_at IS NOT NULL AS disabled, found.type, found.payload::text AS "payloadJson",
      found.created_at AS "createdAt"
    FROM webhooks w
    CROSS JOIN unnest(${eventIds}::uuid[]) AS wanted (event_id)
    CROSS JOIN LATERAL (
      SELECT d.status, d.attempts, e.type, e.payload, e.created_at
      FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
      WHERE d.event_id = wanted.event_id AND d.webhook_id = w.id
      OFFSET 0
    ) found
    WHERE w.id = ${webhookId}::uuid`;
}

/**
 * Records the attempts, their deliveries done and their webhooks' failure runs ended, in one statement
 * (atomic as a transaction). Each delivery is found on its own by its keys, then updated where it lies, as
 * in findDeliveries: joined to the input, a plan made while the table was small scanned all of it. A delivery
 * another transaction changed meanwhile keeps that change (it may be sent again: deliveries are at least
 * once). Resetting a run that is already over matches no row and takes no lock, so that concurrent successes
 * do not queue up on the webhook's row.
 */
export function recordSuccesses(records: readonly AttemptRecord[]): Prisma.Sql {
  const column = <T>(read: (record: AttemptRecord) => T) => records.map(read);
  return Prisma.sql`
    WITH input AS (
      SELECT * FROM unnest(
        ${column((record) => record.eventId)}::uuid[], ${column((record) => record.webhookId)}::uuid[],
        ${column((record) => record.attempt)}::int[], ${column((record) => record.statusCode ?? null)}::int[],
        ${column((record) => record.durationMs)}::int[]
      ) AS input (event_id, webhook_id, attempt, status_code, duration_ms)
    ), attempts AS (
      INSERT INTO webhook_attempts (event_id, webhook_id, attempt, status_code, duration_ms)
      SELECT event_id, webhook_id, attempt, status_code, duration_ms FROM input
    ), found AS (
      SELECT found.row, input.attempt FROM input CROSS JOIN LATERAL (
        SELECT ctid AS row FROM webhook_deliveries
        WHERE event_id = input.event_id AND webhook_id = input.webhook_id
        OFFSET 0
      ) found
    ), deliveries AS (
      UPDATE webhook_deliveries SET status = 'delivered', attempts = found.attempt FROM found
      WHERE webhook_deliveries.ctid = found.row
    )
    UPDATE webhooks SET failing_since = NULL
    WHERE id IN (SELECT webhook_id FROM input) AND failing_since IS NOT NULL`;
}
