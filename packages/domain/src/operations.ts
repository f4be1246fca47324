import { ApiKeyCheckSchema, CreditsSchema } from "./accounts.schema.js";
import { HealthSchema } from "./common.schema.js";
import { defineOperation } from "./operation.js";

/** Every route the API serves. Later areas add theirs here. */
export const operations = {
  health: defineOperation({
    operationId: "health",
    method: "GET",
    path: "/health",
    tag: "Operations",
    summary: "Health check",
    description: "Checks the database and Redis; 503 when either is down. No key needed.",
    auth: "none",
    success: { status: 200, description: "Everything answers.", schema: HealthSchema },
    errors: { 503: "A dependency is down; the message names it." },
  }),
  checkApiKey: defineOperation({
    operationId: "checkApiKey",
    method: "GET",
    path: "/v1/api-keys/check",
    tag: "API keys",
    summary: "Check API Key",
    description: "Answers with the account that owns the key sent in the api-key header.",
    auth: "required",
    success: { status: 200, description: "The key is valid.", schema: ApiKeyCheckSchema },
  }),
  getCredits: defineOperation({
    operationId: "getCredits",
    method: "GET",
    path: "/v1/credit",
    tag: "API keys",
    summary: "Credits",
    description: "The account's credit buckets, each computed from its ledger.",
    auth: "required",
    success: { status: 200, description: "One entry per bucket of the account.", schema: CreditsSchema },
  }),
} as const;

export type Operations = typeof operations;
export type OperationId = keyof Operations;
