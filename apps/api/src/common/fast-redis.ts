import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from "@nestjs/common";
import type { Redis } from "ioredis";
import { REDIS } from "./core.module.js";

/**
 * A Redis that hangs must not hold requests up for long: a command without an answer by then fails.
 * Long enough that a busy machine's slow answers still count: letting requests through exactly when the
 * service is loaded would defeat the limits.
 */
const COMMAND_TIMEOUT_MS = 2000;
/** After a failure, commands are not sent for this long: a hung Redis costs one request the timeout, not each. */
const PAUSE_AFTER_FAILURE_MS = 5000;

export class RedisPausedError extends Error {}

/**
 * The Redis connection of what a request counts on its way (rate limits, failed attempts): its own, which
 * fails at once while Redis is away (no offline queue) where the queues' connection waits for it, and
 * which sends nothing for a few seconds after a command failed (a circuit breaker), so that the requests
 * of a hung Redis go through without waiting for it each time.
 */
@Injectable()
export class FastRedis implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly connection: Redis;
  private pausedUntil = 0;

  constructor(@Inject(REDIS) redis: Redis) {
    this.connection = redis.duplicate({
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
    });
    // Failures are reported by the callers, once in a while; the connection keeps reconnecting.
    this.connection.on("error", () => undefined);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.connection.connect().catch(() => undefined);
  }

  onApplicationShutdown(): void {
    this.connection.disconnect();
  }

  /** Runs `command`; throws RedisPausedError without sending it while paused after a failure. */
  async run<T>(command: (redis: Redis) => Promise<T>): Promise<T> {
    if (Date.now() < this.pausedUntil) {
      throw new RedisPausedError("Redis failed a moment ago; not asked again for a few seconds");
    }
    try {
      return await command(this.connection);
    } catch (error) {
      this.pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS;
      throw error;
    }
  }
}
