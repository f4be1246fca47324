import {
  accountOperations,
  type EnableWebhookRequest,
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
import { CurrentCaller } from "../accounts/current-caller.decorator.js";
import { Endpoint, PathId } from "../common/endpoint.decorator.js";
import { HeldIdempotencyKey } from "../idempotency/held-key.decorator.js";
import type { HeldKey } from "../idempotency/idempotent-write.js";
import { WebhooksService } from "./webhooks.service.js";

/** The webhooks of the caller's account, at /v1. */
@Controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Endpoint(operations.subscribeWebhook)
  subscribe(
    @CurrentCaller() caller: Caller,
    @Body() request: SubscribeWebhookRequest,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<SubscribeWebhookResponse> {
    return this.webhooks.subscribe(caller, request, key);
  }

  @Endpoint(operations.listWebhooks)
  list(@CurrentCaller() caller: Caller): Promise<WebhookList> {
    return this.webhooks.list(caller);
  }

  @Endpoint(operations.unsubscribeWebhook)
  unsubscribe(
    @CurrentCaller() caller: Caller,
    @PathId() id: string,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<void> {
    return this.webhooks.unsubscribe(caller, id, key);
  }

  @Endpoint(operations.testWebhook)
  test(
    @CurrentCaller() caller: Caller,
    @PathId() id: string,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<WebhookTestResponse> {
    return this.webhooks.sendTest(caller, id, key);
  }

  @Endpoint(operations.listWebhookAttempts)
  attempts(@CurrentCaller() caller: Caller, @PathId() id: string): Promise<WebhookAttemptList> {
    return this.webhooks.attempts(caller, id);
  }

  @Endpoint(operations.enableWebhook)
  enable(
    @CurrentCaller() caller: Caller,
    @PathId() id: string,
    @Body() request: EnableWebhookRequest,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<Webhook> {
    return this.webhooks.enable(caller, id, request, key);
  }

  @Endpoint(operations.getWebhook)
  get(@CurrentCaller() caller: Caller, @PathId() id: string): Promise<Webhook> {
    return this.webhooks.get(caller, id);
  }
}

/** The web area's webhooks page. */
@Controller()
export class AccountWebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Endpoint(accountOperations.createAccountWebhook)
  subscribe(
    @CurrentCaller() caller: Caller,
    @Body() request: SubscribeWebhookRequest,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<SubscribeWebhookResponse> {
    return this.webhooks.subscribe(caller, request, key);
  }

  @Endpoint(accountOperations.listAccountWebhooks)
  list(@CurrentCaller() caller: Caller): Promise<WebhookList> {
    return this.webhooks.list(caller);
  }

  @Endpoint(accountOperations.deleteAccountWebhook)
  unsubscribe(
    @CurrentCaller() caller: Caller,
    @PathId() id: string,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<void> {
    return this.webhooks.unsubscribe(caller, id, key);
  }

  @Endpoint(accountOperations.testAccountWebhook)
  test(
    @CurrentCaller() caller: Caller,
    @PathId() id: string,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<WebhookTestResponse> {
    return this.webhooks.sendTest(caller, id, key);
  }

  @Endpoint(accountOperations.listAccountWebhookAttempts)
  attempts(@CurrentCaller() caller: Caller, @PathId() id: string): Promise<WebhookAttemptList> {
    return this.webhooks.attempts(caller, id);
  }

  @Endpoint(accountOperations.enableAccountWebhook)
  enable(
    @CurrentCaller() caller: Caller,
    @PathId() id: string,
    @Body() request: EnableWebhookRequest,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<Webhook> {
    return this.webhooks.enable(caller, id, request, key);
  }
}
