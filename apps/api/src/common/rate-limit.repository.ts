import { Inject, Injectable } from "@nestjs/common";
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import { REDIS_PREFIX } from "./core.module.js";
import { FastRedis } from "./fast-redis.js";

/** One count: which counter (`budget:subject`), how many requests it allows and over how long. */
export interface RateLimitCount {
  counter: string;
  perWindow: number;
  windowMs: number;
}

export interface RateLimitState {
  perWindow: number;
  remaining: number;
  /** Seconds until the counter starts again. */
  resetSeconds: number;
  isExceeded: boolean;
}

/**
 * Adds each counter's requests (ARGV: count, window ms, in KEYS' order) and answers, per counter, its total
 * and the ms left in its window. A fixed window, started by its first request; a counter left without an
 * expiry (by a crash between the two commands) is given one.
 */
const COUNT_SCRIPT = `
local answers = {}
for index, key in ipairs(KEYS) do
  local added = tonumber(ARGV[2 * index - 1])
  local window = tonumber(ARGV[2 * index])
  local total = redis.call('INCRBY', key, added)
  local left = redis.call('PTTL', key)
  if total == added or left < 0 then
    redis.call('PEXPIRE', key, window)
    left = window
  end
  answers[2 * index - 1] = total
  answers[2 * index] = left
end
return answers`;

type CountScript = (keyCount: number, ...keysThenArguments: (string | number)[]) => Promise<number[]>;

/** The requests of one counter waiting for the next round trip, each with its place in the count. */
interface PendingCounter {
  count: RateLimitCount;
  waiting: { resolve: (state: RateLimitState) => void; reject: (error: Error) => void }[];
}

/**
 * The rate-limit counters, in Redis (shared by every API process): a fixed window per counter, started by
 * its first request. The requests that arrive in one turn of the event loop are counted in one round trip,
 * each counter advanced once by its number of requests; each request still gets its own place in the count,
 * so limits stay exact. On the fail-fast connection with its breaker (FastRedis).
 */
@Injectable()
export class RateLimitRepository {
  private readonly keyPrefix: string;
  private pending = new Map<string, PendingCounter>();
  /**
   * Counters over their budget, until their window ends: a flood from one key is then refused without a
   * round trip to Redis per request. Its window ends at the same time in every process (the key's TTL).
   */
  private readonly exceededUntil = new LRUCache<string, { perWindow: number; until: number }>({
    max: 10_000,
  });

  constructor(
    private readonly redis: FastRedis,
    @Inject(REDIS_PREFIX) redisPrefix: string,
  ) {
    redis.connection.defineCommand("countRequests", { lua: COUNT_SCRIPT });
    this.keyPrefix = `${redisPrefix}:rate-limit:`;
  }

  /** Counts one request against `count.counter`; throws when Redis did not answer (or is paused after a failure). */
  count(count: RateLimitCount): Promise<RateLimitState> {
    const exceeded = this.exceededUntil.get(count.counter);
    if (exceeded && exceeded.perWindow === count.perWindow && exceeded.until > Date.now()) {
      const resetSeconds = Math.ceil((exceeded.until - Date.now()) / 1000);
      return Promise.resolve({ perWindow: count.perWindow, remaining: 0, resetSeconds, isExceeded: true });
    }
    if (this.pending.size === 0) setImmediate(() => void this.flush());
    // Requests of one counter with different limits (an account's limits just changed) are counted apart.
    const id = `${count.counter}\n${count.perWindow}\n${count.windowMs}`;
    let counter = this.pending.get(id);
    if (!counter) {
      counter = { count, waiting: [] };
      this.pending.set(id, counter);
    }
    const waiting = counter.waiting;
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  }

  private async flush(): Promise<void> {
    const counters = [...this.pending.values()];
    this.pending = new Map();
    let answers: number[];
    try {
      answers = await this.redis.run((connection) =>
        (connection as Redis & { countRequests: CountScript }).countRequests(
          counters.length,
          ...counters.map(({ count }) => this.keyPrefix + count.counter),
          ...counters.flatMap(({ count, waiting }) => [waiting.length, count.windowMs]),
        ),
      );
    } catch (error) {
      for (const waiter of counters.flatMap(({ waiting }) => waiting)) waiter.reject(error as Error);
      return;
    }
    counters.forEach(({ count, waiting }, index) => {
      const total = answers[2 * index] ?? 0;
      const leftMs = answers[2 * index + 1] ?? 0;
      const first = total - waiting.length + 1;
      if (total > count.perWindow) {
        this.exceededUntil.set(count.counter, { perWindow: count.perWindow, until: Date.now() + leftMs });
      }
      waiting.forEach((waiter, place) => {
        const current = first + place;
        waiter.resolve({
          perWindow: count.perWindow,
          remaining: Math.max(0, count.perWindow - current),
          resetSeconds: Math.ceil(leftMs / 1000),
          isExceeded: current > count.perWindow,
        });
      });
    });
  }
}
