/** At most `limit` requests per `windowMs`. */
export interface Budget {
  limit: number;
  windowMs: number;
}

export interface Spending {
  isRefused: boolean;
  /** Requests left in the window after this one. */
  remaining: number;
  /** When the window ends, in ms since the epoch. */
  resetAt: number;
  resetAfterMs: number;
}

/**
 * Request budgets counted per key (a platform's bucket and its top-level resource) in fixed windows, as
 * Discord's buckets and Slack's per-method tiers count them. Fakes answer their platform's refusal when a
 * spending is refused.
 */
export class RateBudgets {
  private readonly windows = new Map<string, { startedAt: number; used: number }>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  /** Refusals answered, per key. */
  readonly refused = new Map<string, number>();

  spend(key: string, { limit, windowMs }: Budget, now = Date.now()): Spending {
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= windowMs) {
      window = { startedAt: now, used: 0 };
      this.windows.set(key, window);
    }
    const resetAt = window.startedAt + windowMs;
    const isRefused = window.used >= limit;
    if (isRefused) this.refused.set(key, (this.refused.get(key) ?? 0) + 1);
    else window.used += 1;
    return { isRefused, remaining: limit - window.used, resetAt, resetAfterMs: resetAt - now };
  }

  /**
   * Spends one request of a budget that refills steadily (`limit` per `windowMs`, up to `limit` saved up),
   * as limits that allow bursts behave: answers how long until the next request is allowed when refused.
   */
  spendRefilling(key: string, { limit, windowMs }: Budget, now = Date.now()): Spending {
    const perMs = limit / windowMs;
    const bucket = this.buckets.get(key) ?? { tokens: limit, at: now };
    bucket.tokens = Math.min(limit, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.buckets.set(key, bucket);
    const isRefused = bucket.tokens < 1;
    if (isRefused) this.refused.set(key, (this.refused.get(key) ?? 0) + 1);
    else bucket.tokens -= 1;
    const resetAfterMs = isRefused ? (1 - bucket.tokens) / perMs : 0;
    return { isRefused, remaining: Math.floor(bucket.tokens), resetAt: now + resetAfterMs, resetAfterMs };
  }

  /** Refusals answered in all, or for the keys that start with `prefix`. */
  refusals(prefix = ""): number {
    let total = 0;
    for (const [key, count] of this.refused) if (key.startsWith(prefix)) total += count;
    return total;
  }
}
