import { HttpStatus, Inject, Injectable } from "@nestjs/common";
import type { Redis } from "ioredis";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { REDIS } from "../common/core.module.js";
import { RetryLaterException } from "../common/retry-later.exception.js";

const WINDOW_MS = 60_000;

/** Refused with 429 and the seconds until the address may try again. */
export class TooManySignIns extends RetryLaterException {
  constructor(retryAfterSeconds: number) {
    super(
      HttpStatus.TOO_MANY_REQUESTS,
      `too many sign-in attempts from this address; try again in ${retryAfterSeconds} s`,
      retryAfterSeconds,
    );
  }
}

/**
 * Sign-in attempts per client address, counted in Redis so that every API process shares the count: a
 * fixed one-minute window, opened by the first attempt.
 */
@Injectable()
export class SignInThrottleRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async countAttempt(address: string): Promise<void> {
    const key = `${this.config.redis.prefix}:sign-in-attempts:${address}`;
    const replies = await this.redis.multi().incr(key).pexpire(key, WINDOW_MS, "NX").pttl(key).exec();
    const attempts = Number(replies?.[0]?.[1] ?? 0);
    const remainingMs = Number(replies?.[2]?.[1] ?? WINDOW_MS);
    if (attempts > this.config.webArea.signInAttemptsPerMinute) {
      throw new TooManySignIns(Math.max(1, Math.ceil(remainingMs / 1000)));
    }
  }
}
