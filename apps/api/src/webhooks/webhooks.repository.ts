import type { Prisma, Webhook, WebhookAttempt } from "@imagehub/db";
import type { WebhookEventType } from "@imagehub/domain";
import { ConflictException, Inject, Injectable } from "@nestjs/common";
import { PRISMA, type PrismaClient } from "../common/core.module.js";
import { isUuid } from "../common/uuid.js";

export interface NewWebhook {
  accountId: string;
  apiKeyId: string;
  url: string;
  events: WebhookEventType[];
  secret: string;
}

/** One event for one webhook. */
export interface DeliveryKey {
  eventId: string;
  webhookId: string;
}

/** What an attempt needs: the delivery's state, the endpoint and the event. */
export interface DeliveryToMake {
  status: "pending" | "delivered" | "failed";
  attempts: number;
  url: string;
  secret: string;
  disabled: boolean;
  type: string;
  payload: Prisma.JsonValue;
  createdAt: Date;
}

export interface AttemptRecord extends DeliveryKey {
  attempt: number;
  statusCode: number | undefined;
  durationMs: number;
  error: string | undefined;
  /** Delivered: the delivery is done and the webhook's failure run ends. */
  delivered: boolean;
  /** Not delivered: when to try again, or undefined when there is no next attempt. */
  retryInSeconds: number | undefined;
  /** Not delivered: the endpoint asked to be forgotten (410 Gone); it is disabled at once. */
  isGone: boolean;
  disableAfterFailures: number;
}

/** Webhooks, the deliveries the relay makes of outbox events, and every attempt. */
@Injectable()
export class WebhooksRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** Creates the webhook unless the account already has `max` (409); the account row serialises creations. */
  create(input: NewWebhook, max: number): Promise<Webhook> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${input.accountId}::uuid FOR UPDATE`;
      if ((await tx.webhook.count({ where: { accountId: input.accountId } })) >= max) {
        throw new ConflictException(
          `an account has at most ${max} webhooks; unsubscribe one before adding another`,
        );
      }
      return tx.webhook.create({ data: input });
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
  async delete(accountId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const { count } = await this.prisma.webhook.deleteMany({ where: { id, accountId } });
    return count > 0;
  }

  /** Lets a disabled webhook receive events again, its failure run forgotten. */
  async enable(accountId: string, id: string): Promise<Webhook | undefined> {
    if (!isUuid(id)) return undefined;
    const { count } = await this.prisma.webhook.updateMany({
      where: { id, accountId },
      data: { disabledAt: null, disabledReason: null, consecutiveFailures: 0 },
    });
    return count > 0 ? this.find(accountId, id) : undefined;
  }

  /** A `test` event for this one webhook, relayed like any other. Answers its id. */
  async addTestEvent(webhook: Webhook): Promise<string> {
    const event = await this.prisma.outboxEvent.create({
      data: {
        accountId: webhook.accountId,
        webhookId: webhook.id,
        type: "test",
        payload: { webhookId: webhook.id, message: "A test event sent on request." },
      },
    });
    return event.id;
  }

  recentAttempts(webhookId: string, limit: number): Promise<WebhookAttempt[]> {
    return this.prisma.webhookAttempt.findMany({
      where: { webhookId },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit,
    });
  }

  /**
   * Turns up to `limit` unrelayed events into deliveries, one per enabled webhook of the account that chose
   * the event's type (a test event: its one webhook), and marks them relayed, in one statement. Events are
   * locked while relayed: relays running at once take different ones. Answers how many events it took.
   */
  async relay(limit: number): Promise<{ events: number; deliveries: DeliveryKey[] }> {
    const rows = await this.prisma.$queryRaw<{ events: number; eventId: string | null; webhookId: string }[]>`
      WITH batch AS (
        SELECT id, account_id, type, webhook_id FROM outbox_events
        WHERE relayed_at IS NULL ORDER BY created_at, id LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ), relayed AS (
        UPDATE outbox_events SET relayed_at = now() FROM batch WHERE outbox_events.id = batch.id
      ), inserted AS (
        INSERT INTO webhook_deliveries (event_id, webhook_id)
        SELECT batch.id, webhooks.id FROM batch JOIN webhooks ON webhooks.account_id = batch.account_id
          AND webhooks.disabled_at IS NULL
          AND (webhooks.id = batch.webhook_id OR (batch.webhook_id IS NULL AND batch.type = ANY (webhooks.events)))
        ON CONFLICT DO NOTHING
        RETURNING event_id, webhook_id
      )
      SELECT counted.events, inserted.event_id AS "eventId", inserted.webhook_id AS "webhookId"
      FROM (SELECT count(*)::int AS events FROM batch) counted LEFT JOIN inserted ON true`;
    return {
      events: rows[0]?.events ?? 0,
      deliveries: rows.flatMap(({ eventId, webhookId }) => (eventId ? [{ eventId, webhookId }] : [])),
    };
  }

  /** Pending deliveries due more than `seconds` ago: their job is late, or lost with Redis' data. */
  async overdue(seconds: number, limit: number): Promise<(DeliveryKey & { attempt: number })[]> {
    const rows = await this.prisma.webhookDelivery.findMany({
      where: { status: "pending", nextAttemptAt: { lt: new Date(Date.now() - seconds * 1000) } },
      select: { eventId: true, webhookId: true, attempts: true },
      orderBy: { nextAttemptAt: "asc" },
      take: limit,
    });
    return rows.map(({ attempts, ...key }) => ({ ...key, attempt: attempts + 1 }));
  }

  async findDelivery({ eventId, webhookId }: DeliveryKey): Promise<DeliveryToMake | undefined> {
    const delivery = await this.prisma.webhookDelivery.findUnique({
      where: { eventId_webhookId: { eventId, webhookId } },
      select: {
        status: true,
        attempts: true,
        webhook: { select: { url: true, secret: true, disabledAt: true } },
        event: { select: { type: true, payload: true, createdAt: true } },
      },
    });
    if (!delivery) return undefined;
    const { webhook, event, ...state } = delivery;
    return {
      ...state,
      ...event,
      url: webhook.url,
      secret: webhook.secret,
      disabled: webhook.disabledAt !== null,
    };
  }

  /** A delivery not attempted because its webhook is disabled. */
  async abandon({ eventId, webhookId }: DeliveryKey): Promise<void> {
    await this.prisma.webhookDelivery.updateMany({
      where: { eventId, webhookId, status: "pending" },
      data: { status: "failed" },
    });
  }

  /**
   * Records an attempt, moves the delivery on (delivered, due again, or failed), and keeps the webhook's
   * failure run, disabling it when the run is long enough or the endpoint is gone; all in one transaction.
   * Answers whether the webhook is (now) disabled.
   */
  recordAttempt(record: AttemptRecord): Promise<{ isDisabled: boolean }> {
    const { eventId, webhookId } = record;
    return this.prisma.$transaction(async (tx) => {
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
      if (record.delivered) {
        await tx.webhookDelivery.update({
          where: { eventId_webhookId: { eventId, webhookId } },
          data: { status: "delivered", attempts: record.attempt },
        });
        // Matching no row when the run is already 0 takes no lock: concurrent successes do not queue up.
        await tx.webhook.updateMany({
          where: { id: webhookId, consecutiveFailures: { gt: 0 } },
          data: { consecutiveFailures: 0 },
        });
        return { isDisabled: false };
      }
      const webhook = await tx.webhook.update({
        where: { id: webhookId },
        data: { consecutiveFailures: { increment: 1 } },
      });
      const disabledReason = record.isGone
        ? "the endpoint answered 410 Gone"
        : webhook.consecutiveFailures >= record.disableAfterFailures
          ? `${webhook.consecutiveFailures} failed attempts in a row`
          : undefined;
      if (disabledReason && !webhook.disabledAt) {
        await tx.webhook.update({
          where: { id: webhookId },
          data: { disabledAt: new Date(), disabledReason },
        });
      }
      const isDisabled = webhook.disabledAt !== null || disabledReason !== undefined;
      const retry = isDisabled ? undefined : record.retryInSeconds;
      await tx.webhookDelivery.update({
        where: { eventId_webhookId: { eventId, webhookId } },
        data:
          retry === undefined
            ? { status: "failed", attempts: record.attempt }
            : { attempts: record.attempt, nextAttemptAt: new Date(Date.now() + retry * 1000) },
      });
      return { isDisabled };
    });
  }
}
