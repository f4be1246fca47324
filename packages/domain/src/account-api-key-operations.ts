import {
  AccountApiKeyListSchema,
  AccountApiKeySchema,
  ApiKeyIdParamsSchema,
  CreateApiKeyRequestSchema,
  CreatedApiKeySchema,
} from "./account-area.schema.js";
import { defineOperation } from "./operation.js";

/** The web area's API keys page. */
export const accountApiKeyOperations = {
  listApiKeys: defineOperation({
    operationId: "listAccountApiKeys",
    method: "GET",
    path: "/account/api-keys",
    tag: "Account",
    summary: "The account's API keys",
    description: "Oldest first, revoked ones included; never the keys themselves.",
    auth: "session",
    success: { status: 200, description: "The keys.", schema: AccountApiKeyListSchema },
  }),
  createApiKey: defineOperation({
    operationId: "createAccountApiKey",
    method: "POST",
    path: "/account/api-keys",
    tag: "Account",
    summary: "Create an API key",
    description: "The key is in this answer only; the audit log records its creation, as the admin CLI's.",
    auth: "session",
    body: CreateApiKeyRequestSchema,
    success: { status: 201, description: "Created.", schema: CreatedApiKeySchema },
  }),
  revokeApiKey: defineOperation({
    operationId: "revokeAccountApiKey",
    method: "DELETE",
    path: "/account/api-keys/{apiKeyId}",
    tag: "Account",
    summary: "Revoke an API key",
    description: "Requests with the key are refused (401) from then on; the audit log records it.",
    auth: "session",
    params: ApiKeyIdParamsSchema,
    success: { status: 200, description: "Revoked.", schema: AccountApiKeySchema },
    errors: { 404: "No API key with this id in the account." },
  }),
} as const;
