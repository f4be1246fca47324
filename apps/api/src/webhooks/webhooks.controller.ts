import {
  accountOperations,
  type EnableWebhookRequest,
  type Operation,
  operations,
  type SubscribeWebhookRequest,
  type SubscribeWebhookResponse,
  type Webhook,
  type WebhookAttemptList,
  type WebhookList,
  type WebhookTestResponse,
} from "@imagehub/domain";
import { Body, Controller } from "@nestjs/common";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { CurrentCaller } from "../common/api-key.guard.js";
import { Endpoint, PathId } from "../common/endpoint.decorator.js";
import { HeldIdempotencyKey } from "../idempotency/held-key.decorator.js";
import type { HeldKey } from "../idempotency/idempotent-write.js";
import { WebhooksService } from "./webhooks.service.js";

/** The routes /v1 (by API key) and the web area (by session) both serve, each at its own operations. */
function webhookRoutes(
  bound: Record<"subscribe" | "list" | "unsubscribe" | "test" | "attempts" | "enable", Operation>,
) {
  @Controller()
  class WebhookRoutes {
    constructor(readonly webhooks: WebhooksService) {}

    @Endpoint(bound.subscribe)
    subscribe(
      @CurrentCaller() caller: Caller,
      @Body() request: SubscribeWebhookRequest,
      @HeldIdempotencyKey() key: HeldKey | undefined,
    ): Promise<SubscribeWebhookResponse> {
      return this.webhooks.subscribe(caller, request, key);
    }

    @Endpoint(bound.list)
    list(@CurrentCaller() caller: Caller): Promise<WebhookList> {
      return this.webhooks.list(caller);
    }

    @Endpoint(bound.unsubscribe)
    unsubscribe(
      @CurrentCaller() caller: Caller,
      @PathId() id: string,
      @HeldIdempotencyKey() key: HeldKey | undefined,
    ): Promise<void> {
      return this.webhooks.unsubscribe(caller, id, key);
    }

    @Endpoint(bound.test)
    test(
      @CurrentCaller() caller: Caller,
      @PathId() id: string,
      @HeldIdempotencyKey() key: HeldKey | undefined,
    ): Promise<WebhookTestResponse> {
      return this.webhooks.sendTest(caller, id, key);
    }

    @Endpoint(bound.attempts)
    attempts(@CurrentCaller() caller: Caller, @PathId() id: string): Promise<WebhookAttemptList> {
      return this.webhooks.attempts(caller, id);
    }

    @Endpoint(bound.enable)
    enable(
      @CurrentCaller() caller: Caller,
      @PathId() id: string,
      @Body() request: EnableWebhookRequest,
      @HeldIdempotencyKey() key: HeldKey | undefined,
    ): Promise<Webhook> {
      return this.webhooks.enable(caller, id, request, key);
    }
  }
  return WebhookRoutes;
}

@Controller()
export class WebhooksController extends webhookRoutes({
  subscribe: operations.subscribeWebhook,
  list: operations.listWebhooks,
  unsubscribe: operations.unsubscribeWebhook,
  test: operations.testWebhook,
  attempts: operations.listWebhookAttempts,
  enable: operations.enableWebhook,
}) {
  @Endpoint(operations.getWebhook)
  get(@CurrentCaller() caller: Caller, @PathId() id: string): Promise<Webhook> {
    return this.webhooks.get(caller, id);
  }
}

/** The web area's webhooks page. */
@Controller()
export class AccountWebhooksController extends webhookRoutes({
  subscribe: accountOperations.createAccountWebhook,
  list: accountOperations.listAccountWebhooks,
  unsubscribe: accountOperations.deleteAccountWebhook,
  test: accountOperations.testAccountWebhook,
  attempts: accountOperations.listAccountWebhookAttempts,
  enable: accountOperations.enableAccountWebhook,
}) {}
