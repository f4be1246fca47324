import { Inject, Injectable } from "@nestjs/common";
import { REDIS_PREFIX } from "../common/core.module.js";
import { FastRedis } from "../common/fast-redis.js";

const WINDOW_MS = 60_000;

/** The attempts an address made in the current window, and the seconds until the next window opens. */
export interface SignInAttempts {
  attempts: number;
  windowEndsInSeconds: number;
}

/**
 * Sign-in attempts per client address, counted in Redis so that every API process shares the count: a
 * fixed one-minute window, opened by the first attempt. Not counted while Redis does not answer.
 */
@Injectable()
export class SignInThrottleRepository {
  constructor(
    private readonly redis: FastRedis,
    @Inject(REDIS_PREFIX) private readonly redisPrefix: string,
  ) {}

  /** Counts one attempt from `address`. */
  async countAttempt(address: string): Promise<SignInAttempts> {
    const key = `${this.redisPrefix}:sign-in-attempts:${address}`;
    const replies = await this.redis
      .run((redis) => redis.multi().incr(key).pexpire(key, WINDOW_MS, "NX").pttl(key).exec())
      .catch(() => null);
    const remainingMs = Number(replies?.[2]?.[1] ?? WINDOW_MS);
    return {
      attempts: Number(replies?.[0]?.[1] ?? 0),
      windowEndsInSeconds: Math.max(1, Math.ceil(remainingMs / 1000)),
    };
  }
}
