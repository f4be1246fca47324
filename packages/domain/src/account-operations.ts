import { accountApiKeyOperations } from "./account-api-key-operations.js";
import { accountCatalogueOperations } from "./account-catalogue-operations.js";
import { accountGenerationOperations } from "./account-generations-operations.js";
import { accountWebhookOperations } from "./account-webhooks-operations.js";
import { adminOperations } from "./admin-operations.js";
import { sessionOperations } from "./session-operations.js";

/**
 * The routes of the web area (apps/web), under /account and authenticated by a session cookie: never by an
 * api-key, and not part of the /v1 interface or its OpenAPI document. The web app imports each group on
 * its own, so that a page's chunk carries only its own routes' schemas.
 */
export const accountOperations = {
  ...sessionOperations,
  ...accountApiKeyOperations,
  ...accountWebhookOperations,
  ...accountCatalogueOperations,
  ...adminOperations,
  ...accountGenerationOperations,
} as const;
