import { type DynamicModule, Module } from "@nestjs/common";
import type { AppConfig } from "../common/config.js";
import { WebhookDeliveryService } from "./webhook-delivery.service.js";
import { WebhookRelayService } from "./webhook-relay.service.js";
import { WebhookRelayWorker } from "./webhook-relay.worker.js";
import { WebhookSender } from "./webhook-sender.js";
import { AccountWebhooksController, WebhooksController } from "./webhooks.controller.js";
import { WebhooksRepository } from "./webhooks.repository.js";
import { WebhooksService } from "./webhooks.service.js";

/** Subscriptions where the role serves HTTP; the relay and the deliveries where it runs jobs. */
@Module({})
export class WebhooksModule {
  static forConfig(config: AppConfig): DynamicModule {
    const servesHttp = config.role !== "worker";
    const runsJobs = config.role !== "api";
    return {
      module: WebhooksModule,
      controllers: servesHttp ? [WebhooksController, AccountWebhooksController] : [],
      providers: [
        WebhooksRepository,
        ...(servesHttp ? [WebhooksService] : []),
        ...(runsJobs ? [WebhookRelayService, WebhookRelayWorker, WebhookDeliveryService, WebhookSender] : []),
      ],
    };
  }
}
