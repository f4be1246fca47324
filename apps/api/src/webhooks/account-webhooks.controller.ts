import {
  accountOperations,
  type EnableWebhookRequest,
  type SubscribeWebhookRequest,
  type SubscribeWebhookResponse,
  type Webhook,
  type WebhookAttemptList,
  type WebhookList,
  type WebhookTestResponse,
} from "@imagehub/domain";
import { Body, Controller, Param } from "@nestjs/common";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { CurrentCaller } from "../common/api-key.guard.js";
import { Endpoint } from "../common/endpoint.decorator.js";
import { WebhooksService } from "./webhooks.service.js";

/** The web area's webhooks page: the /v1 webhook service, for the signed-in account. */
@Controller()
export class AccountWebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Endpoint(accountOperations.listAccountWebhooks)
  list(@CurrentCaller() caller: Caller): Promise<WebhookList> {
    return this.webhooks.list(caller);
  }

  @Endpoint(accountOperations.createAccountWebhook)
  create(
    @CurrentCaller() caller: Caller,
    @Body() request: SubscribeWebhookRequest,
  ): Promise<SubscribeWebhookResponse> {
    return this.webhooks.subscribe(caller, request);
  }

  @Endpoint(accountOperations.deleteAccountWebhook)
  delete(@CurrentCaller() caller: Caller, @Param("webhookId") id: string): Promise<void> {
    return this.webhooks.unsubscribe(caller, id);
  }

  @Endpoint(accountOperations.testAccountWebhook)
  test(@CurrentCaller() caller: Caller, @Param("webhookId") id: string): Promise<WebhookTestResponse> {
    return this.webhooks.sendTest(caller, id);
  }

  @Endpoint(accountOperations.listAccountWebhookAttempts)
  attempts(@CurrentCaller() caller: Caller, @Param("webhookId") id: string): Promise<WebhookAttemptList> {
    return this.webhooks.attempts(caller, id);
  }

  @Endpoint(accountOperations.enableAccountWebhook)
  enable(
    @CurrentCaller() caller: Caller,
    @Param("webhookId") id: string,
    @Body() request: EnableWebhookRequest,
  ): Promise<Webhook> {
    return this.webhooks.enable(caller, id, request);
  }
}
