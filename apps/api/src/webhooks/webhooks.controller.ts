import {
  type EnableWebhookRequest,
  operations,
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

@Controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Endpoint(operations.subscribeWebhook)
  subscribe(
    @CurrentCaller() caller: Caller,
    @Body() request: SubscribeWebhookRequest,
  ): Promise<SubscribeWebhookResponse> {
    return this.webhooks.subscribe(caller, request);
  }

  @Endpoint(operations.listWebhooks)
  list(@CurrentCaller() caller: Caller): Promise<WebhookList> {
    return this.webhooks.list(caller);
  }

  @Endpoint(operations.getWebhook)
  get(@CurrentCaller() caller: Caller, @Param("apiKeyWebhookId") id: string): Promise<Webhook> {
    return this.webhooks.get(caller, id);
  }

  @Endpoint(operations.unsubscribeWebhook)
  unsubscribe(@CurrentCaller() caller: Caller, @Param("apiWebhookId") id: string): Promise<void> {
    return this.webhooks.unsubscribe(caller, id);
  }

  @Endpoint(operations.testWebhook)
  test(@CurrentCaller() caller: Caller, @Param("apiKeyWebhookId") id: string): Promise<WebhookTestResponse> {
    return this.webhooks.sendTest(caller, id);
  }

  @Endpoint(operations.listWebhookAttempts)
  attempts(
    @CurrentCaller() caller: Caller,
    @Param("apiKeyWebhookId") id: string,
  ): Promise<WebhookAttemptList> {
    return this.webhooks.attempts(caller, id);
  }

  @Endpoint(operations.enableWebhook)
  enable(
    @CurrentCaller() caller: Caller,
    @Param("apiKeyWebhookId") id: string,
    @Body() request: EnableWebhookRequest,
  ): Promise<Webhook> {
    return this.webhooks.enable(caller, id, request);
  }
}
