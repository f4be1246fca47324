import { Inject, Injectable } from "@nestjs/common";
import type { Redis } from "ioredis";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { REDIS } from "../common/core.module.js";

const WINDOW_MS = 60_000;

/** The attempts an address made in the current window, and the seconds until the next window opens. */
export interface SignInAttempts {
  attempts: number;
  windowEndsInSeconds: number;
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

  /** Counts one attempt from `address`. */
  async countAttempt(address: string): Promise<SignInAttempts> {
    const key = `${this.config.redis.prefix}:sign-in-attempts:${address}`;
    const replies = await this.redis.multi().incr(key).pexpire(key, WINDOW_MS, "NX").pttl(key).exec();
    const remainingMs = Number(replies?.[2]?.[1] ?? WINDOW_MS);
    return {
      attempts: Number(replies?.[0]?.[1] ?? 0),
      windowEndsInSeconds: Math.max(1, Math.ceil(remainingMs / 1000)),
    };
  }
}
