import { randomBytes } from "node:crypto";
import type { Webhook as WebhookRow } from "@imagehub/db";
import {
  DEFAULT_WEBHOOK_EVENTS,
  type EnableWebhookRequest,
  type SubscribeWebhookRequest,
  type SubscribeWebhookResponse,
  type Webhook,
  type WebhookAttemptList,
  type WebhookEventType,
} from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { Conflict, InvalidRequest, NotFound } from "../common/domain-errors.js";
import { ForbiddenAddressError, resolveAllowed } from "../common/outside-address.js";
import type { HeldKey } from "../idempotency/idempotent-write.js";
import { JobRepository } from "../jobs/job.repository.js";
import { deliverWebhookJob, groupDeliveries } from "./webhook.jobs.js";
import { WebhooksRepository } from "./webhooks.repository.js";

const RECENT_ATTEMPTS = 100;

/** Webhook subscriptions of an account: each one readable and removable with any key of the account. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly jobs: JobRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `key`, in each change: the request's idempotency key, under which the write records the answer. */
  async subscribe(
    caller: Caller,
    request: SubscribeWebhookRequest,
    key?: HeldKey,
  ): Promise<SubscribeWebhookResponse> {
    await this.checkUrl(new URL(request.url));
    // Standard Webhooks secrets: whsec_ and 24 to 64 random bytes in base64.
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    const answer = (webhook: WebhookRow): SubscribeWebhookResponse => ({ webhookId: webhook.id, secret });
    const webhook = await this.webhooks.create(
      {
        accountId: caller.account.id,
        apiKeyId: caller.apiKey?.id ?? null,
        url: request.url,
        events: [...new Set(request.events ?? DEFAULT_WEBHOOK_EVENTS)],
        secret,
      },
      this.config.webhooks.maxPerAccount,
      { key, answerOf: answer },
    );
    return answer(webhook);
  }

  async get(caller: Caller, id: string): Promise<Webhook> {
    return toWebhook(await this.owned(caller, id));
  }

  async list(caller: Caller): Promise<{ webhooks: Webhook[] }> {
    return { webhooks: (await this.webhooks.list(caller.account.id)).map(toWebhook) };
  }

  async unsubscribe(caller: Caller, id: string, key?: HeldKey): Promise<void> {
    // The answer is empty.
    const isDeleted = await this.webhooks.delete(caller.account.id, id, { key, answerOf: () => undefined });
    if (!isDeleted) throw notFound(id);
  }

  async sendTest(caller: Caller, id: string, key?: HeldKey): Promise<{ eventId: string }> {
    const webhook = await this.owned(caller, id);
    if (webhook.disabledAt) throw new Conflict(`webhook ${id} is disabled: enable it first`);
    const answer = (eventId: string) => ({ eventId });
    return answer(await this.webhooks.addTestEvent(webhook, { key, answerOf: answer }));
  }

  async attempts(caller: Caller, id: string): Promise<WebhookAttemptList> {
    const webhook = await this.owned(caller, id);
    const attempts = await this.webhooks.recentAttempts(webhook.id, RECENT_ATTEMPTS);
    return {
      attempts: attempts.map((attempt) => ({
        eventId: attempt.eventId,
        attempt: attempt.attempt,
        ...(attempt.statusCode !== null && { statusCode: attempt.statusCode }),
        durationMs: attempt.durationMs,
        ...(attempt.error !== null && { error: attempt.error }),
        createdAt: attempt.createdAt.toISOString(),
      })),
    };
  }

  async enable(caller: Caller, id: string, request: EnableWebhookRequest, key?: HeldKey): Promise<Webhook> {
    const enabled = await this.webhooks.enable(caller.account.id, id, request.replay ?? false, {
      key,
      answerOf: toWebhook,
    });
    if (!enabled) throw notFound(id);
    // Due now in PostgreSQL: when Redis is away, the relay's sweep queues them.
    await this.jobs.enqueueIfReachable(deliverWebhookJob, groupDeliveries(enabled.replayed));
    return toWebhook(enabled.webhook);
  }

  private async owned(caller: Caller, id: string): Promise<WebhookRow> {
    const webhook = await this.webhooks.find(caller.account.id, id);
    if (!webhook) throw notFound(id);
    return webhook;
  }

  /**
   * The scheme, the port, no credentials (they would be stored and shown with the webhook: deliveries are
   * signed with its secret instead), and every address the host resolves to now (delivery checks again).
   */
  private async checkUrl(url: URL): Promise<void> {
    const { allowHttp, allowPrivate } = this.config.webhooks;
    if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) {
      throw new InvalidRequest([`url: must use https${allowHttp ? " or http" : ""}`]);
    }
    if (url.username !== "" || url.password !== "") {
      throw new InvalidRequest([
        "url: must not hold a user name or password; check each delivery's signature instead",
      ]);
    }
    if (url.port === "0") throw new InvalidRequest(["url: port 0 cannot receive webhooks"]);
    if (allowPrivate) return;
    try {
      await resolveAllowed(url.hostname);
    } catch (error) {
      const reason =
        error instanceof ForbiddenAddressError
          ? `${error.message}, which cannot receive webhooks`
          : `host ${url.hostname} does not resolve`;
      throw new InvalidRequest([`url: ${reason}`]);
    }
  }
}

function notFound(id: string): NotFound {
  return new NotFound(`no webhook with id ${id} in this account`);
}

function toWebhook(webhook: WebhookRow): Webhook {
  return {
    id: webhook.id,
    apiKeyId: webhook.apiKeyId,
    url: webhook.url,
    events: webhook.events as WebhookEventType[],
    createdAt: webhook.createdAt.toISOString(),
    disabled: webhook.disabledAt !== null,
    ...(webhook.disabledReason !== null && { disabledReason: webhook.disabledReason }),
    ...(webhook.disabledAt !== null && { disabledAt: webhook.disabledAt.toISOString() }),
    ...(webhook.failingSince !== null && { failingSince: webhook.failingSince.toISOString() }),
  };
}
