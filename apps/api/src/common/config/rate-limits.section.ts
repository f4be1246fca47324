import { z } from "zod";
import type { RateLimitBudget } from "../rate-limits.js";
import { section } from "./variables.js";

function requestsPerWindow(fallback: number) {
  return z.coerce.number().int().min(0).max(1_000_000).default(fallback);
}

/**
 * Requests per window of each budget, counted per account (all its keys and sessions together; per client
 * address without a key) in Redis, so that every API process shares them; 0 turns a budget off. Accounts
 * may have their own (admin CLI).
 */
export const RateLimitsSection = section(
  {
    RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
    RATE_LIMIT_GENERAL: requestsPerWindow(600),
    RATE_LIMIT_SEARCH: requestsPerWindow(120),
    RATE_LIMIT_GENERATION_CREATE: requestsPerWindow(30),
    RATE_LIMIT_WEBHOOK_TEST: requestsPerWindow(10),
    RATE_LIMIT_DISPLAY: requestsPerWindow(1200),
    RATE_LIMIT_API_KEY_CREATE: requestsPerWindow(10),
  },
  (values) => ({
    windowSeconds: values.RATE_LIMIT_WINDOW_SECONDS,
    perWindow: {
      general: values.RATE_LIMIT_GENERAL,
      search: values.RATE_LIMIT_SEARCH,
      "generation-create": values.RATE_LIMIT_GENERATION_CREATE,
      "webhook-test": values.RATE_LIMIT_WEBHOOK_TEST,
      display: values.RATE_LIMIT_DISPLAY,
      "api-key-create": values.RATE_LIMIT_API_KEY_CREATE,
    } satisfies Record<RateLimitBudget, number>,
  }),
);
