import { createHash } from "node:crypto";
import { Inject, Injectable, Logger } from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { REDIS_PREFIX } from "./core.module.js";
import { FastRedis } from "./fast-redis.js";

/**
 * How failures of one subject (an address, an email) slow it down: after `freeFailures` of them, the next
 * attempt must wait 1 s, and twice as long after each further failure, up to `maxDelayMs`.
 */
export interface FailurePolicy {
  freeFailures: number;
  maxDelayMs: number;
}

const FIRST_DELAY_MS = 1000;
/** A subject's failures are forgotten this long after its last one (at least a quarter of an hour). */
const MIN_MEMORY_MS = 15 * 60_000;
/** While Redis is away every attempt would say so: one warning every 10 s is enough. */
const WARNING_INTERVAL_MS = 10_000;

/**
 * In one step: counts the failure, works out when the subject may try again (on Redis' clock, the same for
 * every process), and keeps both until the subject has been quiet for a while.
 */
const RECORD_FAILURE = `
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local over = failures - tonumber(ARGV[1]) + 1
local delay = 0
if over > 0 then delay = math.min(tonumber(ARGV[2]) * 2 ^ (over - 1), tonumber(ARGV[3])) end
redis.call('HSET', KEYS[1], 'until', now + delay)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return delay`;

const WAIT_OF = `
local untilMs = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return math.max(0, untilMs - now)`;

/**
 * Failed attempts (unknown API keys, wrong passwords, wrong dashboard tokens) per subject, in Redis so that
 * every API process shares them, with a growing delay rather than a lock: nobody can lock out someone
 * else, and a guesser gets slower and slower. A subject that must wait is remembered in the process too, so
 * that a flood of its attempts is refused without a round trip each. Subjects are stored as digests: no
 * email or address sits in Redis. When Redis does not answer, attempts are not slowed (with a warning).
 */
@Injectable()
export class FailureDelayRepository {
  private readonly logger = new Logger("FailureDelays");
  private readonly waitingUntil = new LRUCache<string, number>({ max: 100_000 });
  private lastWarningAt = 0;

  constructor(
    private readonly redis: FastRedis,
    @Inject(REDIS_PREFIX) private readonly redisPrefix: string,
  ) {}

  /** Milliseconds before `subject` may try again; 0: now. */
  async waitOf(subject: string): Promise<number> {
    const key = this.keyOf(subject);
    const known = this.waitingUntil.get(key);
    if (known !== undefined && known > Date.now()) return known - Date.now();
    try {
      const waitMs = Number(await this.redis.run((redis) => redis.eval(WAIT_OF, 1, key)));
      if (waitMs > 0) this.waitingUntil.set(key, Date.now() + waitMs);
      return waitMs;
    } catch (error) {
      this.warnUncounted(error as Error);
      return 0;
    }
  }

  /** Counts a failure; answers how long the subject must now wait before its next attempt. */
  async recordFailure(subject: string, policy: FailurePolicy): Promise<number> {
    const key = this.keyOf(subject);
    try {
      const waitMs = Number(
        await this.redis.run((redis) =>
          redis.eval(
            RECORD_FAILURE,
            1,
            key,
            policy.freeFailures,
            FIRST_DELAY_MS,
            policy.maxDelayMs,
            Math.max(MIN_MEMORY_MS, policy.maxDelayMs * 4),
          ),
        ),
      );
      if (waitMs > 0) this.waitingUntil.set(key, Date.now() + waitMs);
      return waitMs;
    } catch (error) {
      this.warnUncounted(error as Error);
      return 0;
    }
  }

  /** The subject succeeded: its failures are forgotten. */
  async forget(subject: string): Promise<void> {
    const key = this.keyOf(subject);
    this.waitingUntil.delete(key);
    await this.redis.run((redis) => redis.del(key)).catch((error: Error) => this.warnUncounted(error));
  }

  private keyOf(subject: string): string {
    return `${this.redisPrefix}:failures:${createHash("sha256").update(subject).digest("base64url")}`;
  }

  private warnUncounted(error: Error): void {
    if (Date.now() - this.lastWarningAt < WARNING_INTERVAL_MS) return;
    this.lastWarningAt = Date.now();
    this.logger.warn(`failed attempts not counted, Redis did not answer: ${error.message}`);
  }
}

/** Whole seconds to wait, at least 1: what Retry-After and the messages say. */
export function secondsOf(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}
