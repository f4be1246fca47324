import {
  AccountApiKeyListSchema,
  AccountApiKeySchema,
  ApiKeyIdParamsSchema,
  CreateApiKeyRequestSchema,
  CreatedApiKeySchema,
  RedeemLinkRequestSchema,
  SessionSchema,
  SignInRequestSchema,
  SignUpRequestSchema,
  WebAreaSettingsSchema,
} from "./account-area.schema.js";
import { accountCatalogueOperations } from "./account-catalogue-operations.js";
import { accountGenerationOperations } from "./account-generations-operations.js";
import { accountWebhookOperations } from "./account-webhooks-operations.js";
import { adminOperations } from "./admin-operations.js";
import { defineOperation } from "./operation.js";

/**
 * The routes of the web area (apps/web), under /account and authenticated by a session cookie: never by an
 * api-key, and not part of the /v1 interface or its OpenAPI document.
 */
export const accountOperations = {
  webAreaSettings: defineOperation({
    operationId: "webAreaSettings",
    method: "GET",
    path: "/account/settings",
    tag: "Account",
    summary: "What the sign-in page offers",
    auth: "signed-out",
    success: { status: 200, description: "The settings.", schema: WebAreaSettingsSchema },
  }),
  signIn: defineOperation({
    operationId: "signIn",
    method: "POST",
    path: "/account/sign-in",
    tag: "Account",
    summary: "Sign in",
    description:
      "Checks the password and sets the session cookie. Failed attempts are limited per address, and a run of them locks the account for a while.",
    auth: "signed-out",
    body: SignInRequestSchema,
    success: { status: 200, description: "Signed in.", schema: SessionSchema },
    errors: {
      401: "Wrong email or password.",
      423: "Locked after too many failed sign-ins; the message says until when.",
      429: "Too many sign-in attempts from this address; Retry-After says when to try again.",
    },
  }),
  signUp: defineOperation({
    operationId: "signUp",
    method: "POST",
    path: "/account/sign-up",
    tag: "Account",
    summary: "Open sign-up",
    description: "Creates an account with the starter credits and signs it in, when sign-up is open.",
    auth: "signed-out",
    body: SignUpRequestSchema,
    success: { status: 201, description: "Created and signed in.", schema: SessionSchema },
    errors: { 403: "Sign-up is closed.", 409: "An account with this email exists." },
  }),
  redeemLink: defineOperation({
    operationId: "redeemLink",
    method: "POST",
    path: "/account/links/redeem",
    tag: "Account",
    summary: "Use a one-time link",
    description:
      "Signs in with a one-time link's token; an invitation sets the password given with it. The link is then spent.",
    auth: "signed-out",
    body: RedeemLinkRequestSchema,
    success: { status: 200, description: "Signed in.", schema: SessionSchema },
    errors: { 400: "An invitation needs a password.", 410: "The link is unknown, used or expired." },
  }),
  getSession: defineOperation({
    operationId: "getSession",
    method: "GET",
    path: "/account/session",
    tag: "Account",
    summary: "The signed-in account",
    auth: "session",
    success: { status: 200, description: "The session.", schema: SessionSchema },
  }),
  signOut: defineOperation({
    operationId: "signOut",
    method: "POST",
    path: "/account/sign-out",
    tag: "Account",
    summary: "Sign out",
    auth: "session",
    success: { status: 200, description: "Signed out; the cookie is cleared." },
  }),
  signOutEverywhere: defineOperation({
    operationId: "signOutEverywhere",
    method: "POST",
    path: "/account/sign-out-everywhere",
    tag: "Account",
    summary: "Sign out every session of the account",
    auth: "session",
    success: { status: 200, description: "Every session of the account has ended." },
  }),
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
  ...accountWebhookOperations,
  ...accountCatalogueOperations,
  ...adminOperations,
  ...accountGenerationOperations,
} as const;
