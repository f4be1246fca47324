import { Inject, Injectable, type OnApplicationShutdown } from "@nestjs/common";
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import { REDIS_PREFIX } from "./core.module.js";
import { FastRedis } from "./fast-redis.js";

/** One count: which counter (`budget:subject`), how many requests it allows and over how long. */
export interface RateLimitCount {
  counter: string;
  perWindow: number;
  windowMs: number;
  /**
   * Counted in this process and sent to Redis every SEND_EVERY_MS, once the counter's total is known: the
   * request waits for no round trip. Other processes' requests show up to that much later, so a budget
   * counted this way can be exceeded by what the other processes let through meanwhile.
   */
  isCountedLocally: boolean;
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

/** How often counts kept in this process are added to Redis' counters. */
const SEND_EVERY_MS = 50;

type CountScript = (keyCount: number, ...keysThenArguments: (string | number)[]) => Promise<number[]>;

/**
 * What the next round trip adds to one counter: the requests waiting for it, each with its place in the
 * count, and those already answered here (counted locally) whose count Redis has not had yet.
 */
interface PendingCounter {
  count: RateLimitCount;
  answeredHere: number;
  waiting: { resolve: (state: RateLimitState) => void; reject: (error: Error) => void }[];
}

/**
 * A locally counted counter: its total as Redis last answered, what was counted here since (sent and not yet
 * answered, or not sent yet), its window.
 */
interface KnownCounter {
  total: number;
  sending: number;
  unsent: number;
  windowEndsAt: number;
}

/**
 * The rate-limit counters, in Redis (shared by every API process): a fixed window per counter, started by
 * its first request. The requests that arrive in one turn of the event loop are counted in one round trip,
 * each counter advanced once by its number of requests; each request still gets its own place in the count,
 * so limits stay exact. Counts marked `isCountedLocally` wait for no round trip once their total is known
 * (see RateLimitCount). On the fail-fast connection with its breaker (FastRedis).
 */
@Injectable()
export class RateLimitRepository implements OnApplicationShutdown {
  private readonly keyPrefix: string;
  private pending = new Map<string, PendingCounter>();
  private readonly known = new LRUCache<string, KnownCounter>({ max: 10_000 });
  private sendTimer: NodeJS.Timeout | undefined;
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

  onApplicationShutdown(): void {
    clearTimeout(this.sendTimer);
  }

  /** Counts one request against `count.counter`; throws when Redis did not answer (or is paused after a failure). */
  count(count: RateLimitCount): Promise<RateLimitState> {
    const exceeded = this.exceededUntil.get(count.counter);
    if (exceeded && exceeded.perWindow === count.perWindow && exceeded.until > Date.now()) {
      const resetSeconds = Math.ceil((exceeded.until - Date.now()) / 1000);
      return Promise.resolve({ perWindow: count.perWindow, remaining: 0, resetSeconds, isExceeded: true });
    }
    const known = count.isCountedLocally ? this.known.get(this.idOf(count)) : undefined;
    if (known && known.windowEndsAt > Date.now()) {
      known.unsent += 1;
      this.sendTimer ??= setTimeout(() => this.sendLocalCounts(), SEND_EVERY_MS).unref();
      const current = known.total + known.sending + known.unsent;
      return Promise.resolve(this.stateOf(count, current, known.windowEndsAt - Date.now()));
    }
    const waiting = this.pendingOf(count).waiting;
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  }

  /** Requests of one counter with different limits (an account's limits just changed) are counted apart. */
  private idOf(count: RateLimitCount): string {
    return `${count.counter}\n${count.perWindow}\n${count.windowMs}`;
  }

  private pendingOf(count: RateLimitCount): PendingCounter {
    if (this.pending.size === 0) setImmediate(() => void this.flush());
    const id = this.idOf(count);
    let counter = this.pending.get(id);
    if (!counter) {
      counter = { count, answeredHere: 0, waiting: [] };
      this.pending.set(id, counter);
    }
    return counter;
  }

  /** Adds what was counted here to Redis with the next round trip; the answer brings the totals up to date. */
  private sendLocalCounts(): void {
    this.sendTimer = undefined;
    for (const [id, known] of this.known.entries()) {
      if (known.unsent === 0) continue;
      const [counter, perWindow, windowMs] = id.split("\n");
      const count = {
        counter: counter ?? "",
        perWindow: Number(perWindow),
        windowMs: Number(windowMs),
        isCountedLocally: true,
      };
      this.pendingOf(count).answeredHere += known.unsent;
      known.sending += known.unsent;
      known.unsent = 0;
    }
  }

  /** The state of a request counted `current`-th in its window, noting a counter over its budget. */
  private stateOf(count: RateLimitCount, current: number, leftMs: number): RateLimitState {
    this.noteIfExceeded(count, current, leftMs);
    return {
      perWindow: count.perWindow,
      remaining: Math.max(0, count.perWindow - current),
      resetSeconds: Math.ceil(leftMs / 1000),
      isExceeded: current > count.perWindow,
    };
  }

  private noteIfExceeded(count: RateLimitCount, total: number, leftMs: number): void {
    if (total > count.perWindow) {
      this.exceededUntil.set(count.counter, { perWindow: count.perWindow, until: Date.now() + leftMs });
    }
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
          ...counters.flatMap(({ count, answeredHere, waiting }) => [
            answeredHere + waiting.length,
            count.windowMs,
          ]),
        ),
      );
    } catch (error) {
      for (const waiter of counters.flatMap(({ waiting }) => waiting)) waiter.reject(error as Error);
      // Counts already answered here go with a later round trip.
      for (const { count, answeredHere } of counters) {
        const known = this.known.get(this.idOf(count));
        if (!known) continue;
        known.sending -= answeredHere;
        known.unsent += answeredHere;
      }
      return;
    }
    counters.forEach(({ count, answeredHere, waiting }, index) => {
      const total = answers[2 * index] ?? 0;
      const leftMs = answers[2 * index + 1] ?? 0;
      if (count.isCountedLocally) {
        const id = this.idOf(count);
        const known = this.known.get(id);
        this.known.set(id, {
          total,
          sending: (known?.sending ?? 0) - answeredHere,
          unsent: known?.unsent ?? 0,
          windowEndsAt: Date.now() + leftMs,
        });
      }
      this.noteIfExceeded(count, total, leftMs);
      const first = total - waiting.length + 1;
      waiting.forEach((waiter, place) => {
        waiter.resolve(this.stateOf(count, first + place, leftMs));
      });
    });
  }
}
