import { forTheSession } from "./for-the-session.js";
import { operations } from "./operations.js";
import { WebhookIdParamsSchema } from "./webhooks.schema.js";

/** The web area's webhooks page: the /v1 webhook operations, for the signed-in account. */
export const accountWebhookOperations = {
  listAccountWebhooks: forTheSession(operations.listWebhooks, {
    operationId: "listAccountWebhooks",
    path: "/account/webhooks",
  }),
  createAccountWebhook: forTheSession(operations.subscribeWebhook, {
    operationId: "createAccountWebhook",
    path: "/account/webhooks",
    description:
      "As the /v1 subscribe, owned by no API key (apiKeyId null): the signing secret is in this answer only.",
  }),
  deleteAccountWebhook: forTheSession(operations.unsubscribeWebhook, {
    operationId: "deleteAccountWebhook",
    path: "/account/webhooks/{webhookId}",
    params: WebhookIdParamsSchema,
  }),
  testAccountWebhook: forTheSession(operations.testWebhook, {
    operationId: "testAccountWebhook",
    path: "/account/webhooks/{webhookId}/test",
    params: WebhookIdParamsSchema,
  }),
  listAccountWebhookAttempts: forTheSession(operations.listWebhookAttempts, {
    operationId: "listAccountWebhookAttempts",
    path: "/account/webhooks/{webhookId}/attempts",
    params: WebhookIdParamsSchema,
  }),
  enableAccountWebhook: forTheSession(operations.enableWebhook, {
    operationId: "enableAccountWebhook",
    path: "/account/webhooks/{webhookId}/enable",
    params: WebhookIdParamsSchema,
  }),
} as const;
