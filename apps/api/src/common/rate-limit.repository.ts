import { fastifyRateLimit } from "@fastify/rate-limit";
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from "@nestjs/common";
import { HttpAdapterHost } from "@nestjs/core";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import { APP_CONFIG, type AppConfig } from "./config.js";
import { REDIS } from "./core.module.js";

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
 * A Redis that hangs must not hold requests up for long: a count without an answer by then fails, and the
 * guard lets the request through. Long enough that a busy machine's slow answers still count: letting
 * requests through exactly when the service is loaded would defeat the limits. A Redis that is down fails
 * at once: commands are not queued while disconnected.
 */
const COUNT_TIMEOUT_MS = 2000;

type CountRequest = (request: FastifyRequest) => ReturnType<ReturnType<FastifyInstance["createRateLimit"]>>;

/**
 * The rate-limit counters, in Redis (shared by every API process) through @fastify/rate-limit's store: a
 * fixed window per counter, started by its first request. Its own connection, which fails at once while
 * Redis is away, where the queues' connection waits for it.
 */
@Injectable()
export class RateLimitRepository implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly connection: Redis;
  /** The plugin reads a request's key and limits through functions of the request: the count is kept here. */
  private readonly counts = new WeakMap<FastifyRequest, RateLimitCount>();
  private countRequest: CountRequest | undefined;
  /**
   * Counters over their budget, until their window ends: a flood from one key is then refused without a
   * round trip to Redis per request. Its window ends at the same time in every process (the key's TTL).
   */
  private readonly exceededUntil = new LRUCache<string, { perWindow: number; until: number }>({
    max: 10_000,
  });

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(REDIS) redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.connection = redis.duplicate({
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COUNT_TIMEOUT_MS,
    });
    // Failed counts are reported by the guard, once in a while; the connection keeps reconnecting.
    this.connection.on("error", () => undefined);
  }

  /**
   * At bootstrap, once Nest has added its routes and set its error handler: registering a plugin makes
   * Fastify load what is queued, routes included, and each route keeps the error handler of that moment.
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.connection.connect().catch(() => undefined);
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const countOf = (request: FastifyRequest) => {
      const count = this.counts.get(request);
      if (!count) throw new Error("rate limit counted without a count");
      return count;
    };
    await fastify.register(fastifyRateLimit, {
      global: false,
      redis: this.connection,
      nameSpace: `${this.config.redis.prefix}:rate-limit:`,
      keyGenerator: (request) => countOf(request).counter,
      max: (request) => countOf(request).perWindow,
      timeWindow: (request) => countOf(request).windowMs,
    });
    this.countRequest = fastify.createRateLimit();
  }

  onApplicationShutdown(): void {
    this.connection.disconnect();
  }

  /** Counts the request against `count.counter`; throws when Redis did not answer. */
  async count(request: FastifyRequest, count: RateLimitCount): Promise<RateLimitState> {
    const exceeded = this.exceededUntil.get(count.counter);
    if (exceeded && exceeded.perWindow === count.perWindow && exceeded.until > Date.now()) {
      const resetSeconds = Math.ceil((exceeded.until - Date.now()) / 1000);
      return { perWindow: count.perWindow, remaining: 0, resetSeconds, isExceeded: true };
    }
    if (!this.countRequest) throw new Error("rate limits are not ready");
    this.counts.set(request, count);
    const result = await this.countRequest(request);
    if (result.isAllowed) throw new Error("rate limit counter on the allow list");
    if (result.isExceeded) {
      this.exceededUntil.set(count.counter, { perWindow: count.perWindow, until: Date.now() + result.ttl });
    }
    return {
      perWindow: result.max,
      remaining: result.remaining,
      resetSeconds: result.ttlInSeconds,
      isExceeded: result.isExceeded,
    };
  }
}
