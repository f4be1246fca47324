import type { accountOperations, operations } from "@imagehub/domain";
import { z } from "zod";

/** The request budgets: each counts its own requests, per account (per client address without a key). */
export const RATE_LIMIT_BUDGETS = [
  "general",
  "search",
  "generation-create",
  "webhook-test",
  "display",
  "api-key-create",
] as const;
export type RateLimitBudget = (typeof RATE_LIMIT_BUDGETS)[number];

/**
 * Budgets counted in each API process and added to the shared counters every few tens of milliseconds, so
 * that a request waits for no round trip to Redis: displays of stored, immutable files, the most frequent
 * and cheapest requests. Across processes such a budget can be exceeded by what the others let through in
 * that time; every other budget is exact.
 */
export const LOCALLY_COUNTED_BUDGETS: ReadonlySet<RateLimitBudget> = new Set(["display"]);

/** What an account may have of its own (admin CLI `limits set`): a budget, or its cap on running generations. */
export const ACCOUNT_LIMIT_NAMES = [...RATE_LIMIT_BUDGETS, "active-generations"] as const;
export type AccountLimitName = (typeof ACCOUNT_LIMIT_NAMES)[number];

const limitValue = z.number().int().min(0).max(1_000_000).optional();

/** `accounts.limits`: only what differs from the configured defaults; 0 turns a budget or the cap off. */
export const AccountLimitsSchema = z.object({
  general: limitValue,
  search: limitValue,
  "generation-create": limitValue,
  "webhook-test": limitValue,
  display: limitValue,
  "api-key-create": limitValue,
  "active-generations": limitValue,
});
export type AccountLimits = z.infer<typeof AccountLimitsSchema>;

/** A stored value that no longer reads (a name since removed) must not lock the account out: it is dropped. */
export function readAccountLimits(stored: unknown): AccountLimits {
  const parsed = AccountLimitsSchema.safeParse(stored);
  return parsed.success ? parsed.data : {};
}

type OperationId =
  | (typeof operations)[keyof typeof operations]["operationId"]
  | (typeof accountOperations)[keyof typeof accountOperations]["operationId"];

/**
 * The routes whose cost or side effects differ from the rest: each has its own budget. Health checks are
 * never limited (an orchestrator polls them); every other operation counts against `general`.
 */
const BUDGET_OF_OPERATION: Partial<Record<OperationId, RateLimitBudget | "unlimited">> = {
  health: "unlimited",
  liveness: "unlimited",
  searchImages: "search",
  // The web area's search costs what the /v1 one does.
  searchAccountImages: "search",
  createImageGeneration: "generation-create",
  retryImageGeneration: "generation-create",
  createAccountGeneration: "generation-create",
  retryAccountGeneration: "generation-create",
  testWebhook: "webhook-test",
  testAccountWebhook: "webhook-test",
  displayImage: "display",
  signedImageFile: "display",
  createAccountApiKey: "api-key-create",
};

/** The budget a request to `operationId` counts against (undocumented routes: `general`); undefined: none. */
export function budgetOf(operationId: string | undefined): RateLimitBudget | undefined {
  const budget = BUDGET_OF_OPERATION[operationId as OperationId] ?? "general";
  return budget === "unlimited" ? undefined : budget;
}
