import type { Database, Listener, Prisma, Webhook, WebhookAttempt } from "@imagehub/db";
import { WEBHOOK_DISABLED_EVENT, type WebhookEventType } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import DataLoader from "dataloader";
import { DATABASE, PRISMA, type PrismaClient } from "../common/core.module.js";
import { Conflict } from "../common/domain-errors.js";
import { isUuid } from "../common/uuid.js";
import { type KeyedAnswer, recordAnswer } from "../idempotency/idempotent-write.js";
import type { AttemptRecord, DeliveryKey } from "./webhook.statements.js";
import * as statements from "./webhook.statements.js";

export interface NewWebhook {
  accountId: string;
  apiKeyId: string | null;
  url: string;
  events: WebhookEventType[];
  secret: string;
}

/** What an attempt needs: the delivery's state, the endpoint and the event. */
export interface DeliveryToMake {
  status: "pending" | "delivered" | "failed";
  attempts: number;
  url: string;
  secret: string;
  disabled: boolean;
  type: string;
  /** The event's payload as JSON text, as PostgreSQL writes it: sent as it is, never parsed here. */
  payloadJson: string;
  createdAt: Date;
}

export interface FailedAttempt extends AttemptRecord {
  /** Why it is not delivered, for people to read. */
  error: string | undefined;
  /** When to try again, or undefined when there is no next attempt. */
  retryInSeconds: number | undefined;
  /** The policy: why the webhook is disabled, given when its run of failures began; undefined to go on. */
  reasonToDisable: (failingSince: Date) => string | undefined;
}

/**
 * Groups of deliveries run by the dozen at once: the successes they record in one turn of the event loop
 * are gathered into one statement, as each round trip to PostgreSQL costs more CPU than the work it
 * carries. No timer window: a group waits for nothing but its own statement.
 */
const batchOptions = {
  cache: false,
  maxBatchSize: 200,
  batchScheduleFn: (callback: () => void) => setImmediate(callback),
};

/** The channel outbox_events' trigger notifies (migration outbox_events_notify). */
const OUTBOX_CHANNEL = "outbox_events";

/** Webhooks, the deliveries the relay makes of outbox events, and every attempt. */
@Injectable()
export class WebhooksRepository {
  private readonly successes = new DataLoader<AttemptRecord, void>(
    (records) => this.writeSuccesses(records),
    batchOptions,
  );

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(DATABASE) private readonly database: Database,
  ) {}

  /** Creates the webhook unless the account already has `max` (409); the account row serialises creations. */
  create(input: NewWebhook, max: number, answer: KeyedAnswer<Webhook>): Promise<Webhook> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${input.accountId}::uuid FOR UPDATE`;
      if ((await tx.webhook.count({ where: { accountId: input.accountId } })) >= max) {
        throw new Conflict(`an account has at most ${max} webhooks; unsubscribe one before adding another`);
      }
      const webhook = await tx.webhook.create({ data: input });
      await recordAnswer(tx, answer, webhook);
      return webhook;
    });
  }

  async find(accountId: string, id: string): Promise<Webhook | undefined> {
    if (!isUuid(id)) return undefined;
    return (await this.prisma.webhook.findFirst({ where: { id, accountId } })) ?? undefined;
  }

  list(accountId: string): Promise<Webhook[]> {
    return this.prisma.webhook.findMany({ where: { accountId }, orderBy: { createdAt: "asc" } });
  }

  /** Removes the webhook with its pending deliveries; false when the account has no such webhook. */
  async delete(accountId: string, id: string, answer: KeyedAnswer<void>): Promise<boolean> {
    if (!isUuid(id)) return false;
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.webhook.deleteMany({ where: { id, accountId } });
      if (count === 0) return false;
      await recordAnswer(tx, answer, undefined);
      return true;
    });
  }

  /**
   * Lets a disabled webhook receive events again, its failure run forgotten. The deliveries held while it
   * was disabled are given up, unless `replay`: then they, and those given up since its failure run began,
   * are due again at once. Answers the webhook and the deliveries to queue.
   */
  async enable(
    accountId: string,
    id: string,
    replay: boolean,
    answer: KeyedAnswer<Webhook>,
  ): Promise<{ webhook: Webhook; replayed: (DeliveryKey & { attempt: number })[] } | undefined> {
    if (!isUuid(id)) return undefined;
    return this.prisma.$transaction(async (tx) => {
      const [before] = await tx.$queryRaw<Pick<Webhook, "failingSince" | "disabledAt">[]>`
        SELECT failing_since AS "failingSince", disabled_at AS "disabledAt" FROM webhooks
        WHERE id = ${id}::uuid AND account_id = ${accountId}::uuid FOR UPDATE`;
      if (!before) return undefined;
      const webhook = await tx.webhook.update({
        where: { id },
        data: { disabledAt: null, disabledReason: null, failingSince: null },
      });
      await recordAnswer(tx, answer, webhook);
      const runStart = before.failingSince ?? before.disabledAt;
      if (replay && runStart) {
        const rows = await tx.$queryRaw<{ eventId: string; attempts: number }[]>`
          UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = now()
          WHERE d.webhook_id = ${id}::uuid AND (d.status = 'pending' OR (d.status = 'failed' AND EXISTS (
            SELECT 1 FROM webhook_attempts a
            WHERE a.event_id = d.event_id AND a.webhook_id = d.webhook_id AND a.created_at >= ${runStart})))
          RETURNING d.event_id AS "eventId", d.attempts`;
        return {
          webhook,
          replayed: rows.map(({ eventId, attempts }) => ({ eventId, webhookId: id, attempt: attempts + 1 })),
        };
      }
      if (before.disabledAt) {
        await tx.webhookDelivery.updateMany({
          where: { webhookId: id, status: "pending" },
          data: { status: "failed" },
        });
      }
      return { webhook, replayed: [] };
    });
  }

  /** A `test` event for this one webhook, relayed like any other. Answers its id. */
  addTestEvent(webhook: Webhook, answer: KeyedAnswer<string>): Promise<string> {
    return this.prisma.$transaction(async (tx) => {
      const event = await tx.outboxEvent.create({
        data: {
          accountId: webhook.accountId,
          webhookId: webhook.id,
          type: "test",
          payload: { webhookId: webhook.id, message: "A test event sent on request." },
        },
      });
      await recordAnswer(tx, answer, event.id);
      return event.id;
    });
  }

  recentAttempts(webhookId: string, limit: number): Promise<WebhookAttempt[]> {
    return this.prisma.webhookAttempt.findMany({
      where: { webhookId },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit,
    });
  }

  /**
   * Turns up to `limit` unrelayed events into deliveries, one per webhook of the account that chose the
   * event's type (a test event: its one webhook; webhook.disabled: every other webhook), and marks them
   * relayed, in one statement. A disabled webhook's deliveries are recorded and held for a replay; those of
   * enabled webhooks are answered, to be queued, in the events' order. Events are locked while relayed: relays
   * running at once take different ones. Answers how many events it took.
   */
  async relay(limit: number): Promise<{ events: number; deliveries: DeliveryKey[] }> {
    const rows = await this.database.query<{ events: number; eventId: string | null; webhookId: string }>(
      statements.relay(limit),
      statements.PREPARED,
    );
    return {
      events: rows[0]?.events ?? 0,
      deliveries: rows.flatMap(({ eventId, webhookId }) => (eventId ? [{ eventId, webhookId }] : [])),
    };
  }

  /** Calls `onNewEvents` as soon as a transaction that wrote outbox events commits (their table's trigger). */
  listenForEvents(onNewEvents: () => void): Promise<Listener> {
    return this.database.listen(OUTBOX_CHANNEL, onNewEvents);
  }

  /**
   * Pending deliveries of enabled webhooks due more than `seconds` ago: their job is late, failed for want
   * of the database, or lost with Redis' data.
   */
  async overdue(seconds: number, limit: number): Promise<(DeliveryKey & { attempt: number })[]> {
    const rows = await this.prisma.webhookDelivery.findMany({
      where: {
        status: "pending",
        nextAttemptAt: { lt: new Date(Date.now() - seconds * 1000) },
        webhook: { disabledAt: null },
      },
      select: { eventId: true, webhookId: true, attempts: true },
      orderBy: { nextAttemptAt: "asc" },
      take: limit,
    });
    return rows.map(({ attempts, ...key }) => ({ ...key, attempt: attempts + 1 }));
  }

  /** The deliveries of these events to the webhook, by event id: one statement for a group. */
  async findDeliveries(webhookId: string, eventIds: readonly string[]): Promise<Map<string, DeliveryToMake>> {
    const rows = await this.database.query<DeliveryToMake & { eventId: string }>(
      statements.findDeliveries(webhookId, eventIds),
      statements.PREPARED,
    );
    return new Map(rows.map(({ eventId, ...delivery }) => [eventId, delivery]));
  }

  /**
   * Records successful attempts, their deliveries done and their webhooks' failure runs ended. Those recorded
   * in one turn of the event loop, by every group, share one statement.
   */
  async recordSuccesses(records: readonly AttemptRecord[]): Promise<void> {
    for (const outcome of await this.successes.loadMany(records)) {
      if (outcome instanceof Error) throw outcome;
    }
  }

  /** The successes gathered in one turn, in one statement: most attempts succeed. */
  private async writeSuccesses(records: readonly AttemptRecord[]): Promise<undefined[]> {
    await this.database.query(statements.recordSuccesses(records), statements.PREPARED);
    return records.map(() => undefined);
  }

  /**
   * Records a failed attempt and moves the delivery on (due again, failed, or held while its webhook is
   * disabled), and keeps the webhook's failure run, disabling it when the record's policy gives a reason;
   * all in one transaction. Answers whether the webhook is (now) disabled.
   */
  recordFailure(record: FailedAttempt): Promise<{ isDisabled: boolean }> {
    const { eventId, webhookId } = record;
    return this.prisma.$transaction(async (tx) => {
      // The webhook's row first, as an unsubscribe locks it before its deliveries and their attempts: taken
      // the other way round, the two would wait for each other.
      // The run of failures begins with the first failure after a success.
      const [webhook] = await tx.$queryRaw<Pick<Webhook, "failingSince" | "disabledAt">[]>`
        UPDATE webhooks SET failing_since = coalesce(failing_since, now()) WHERE id = ${webhookId}::uuid
        RETURNING failing_since AS "failingSince", disabled_at AS "disabledAt"`;
      // Gone meanwhile (unsubscribed): nothing more to do for it.
      if (!webhook) return { isDisabled: true };
      await tx.webhookAttempt.create({
        data: {
          eventId,
          webhookId,
          attempt: record.attempt,
          statusCode: record.statusCode ?? null,
          durationMs: record.durationMs,
          error: record.error ?? null,
        },
      });
      const disabledReason = webhook.disabledAt
        ? undefined
        : record.reasonToDisable(webhook.failingSince ?? new Date());
      if (disabledReason) await this.disable(tx, webhookId, disabledReason);
      const isDisabled = webhook.disabledAt !== null || disabledReason !== undefined;
      const retry = record.retryInSeconds;
      await tx.webhookDelivery.update({
        where: { eventId_webhookId: { eventId, webhookId } },
        data: isDisabled
          ? // Held, pending, for a replay when the webhook is enabled again.
            { attempts: record.attempt }
          : retry === undefined
            ? { status: "failed", attempts: record.attempt }
            : { attempts: record.attempt, nextAttemptAt: new Date(Date.now() + retry * 1000) },
      });
      return { isDisabled };
    });
  }

  /** Disables the webhook and tells the account's other webhooks, in the caller's transaction. */
  private async disable(tx: Prisma.TransactionClient, id: string, reason: string): Promise<void> {
    const webhook = await tx.webhook.update({
      where: { id },
      data: { disabledAt: new Date(), disabledReason: reason },
    });
    await tx.outboxEvent.create({
      data: {
        accountId: webhook.accountId,
        type: WEBHOOK_DISABLED_EVENT,
        payload: {
          webhookId: id,
          url: webhook.url,
          disabledAt: (webhook.disabledAt as Date).toISOString(),
          disabledReason: reason,
        },
      },
    });
  }
}
