import { fastifyRateLimit } from "@fastify/rate-limit";
import { Inject, Injectable, type OnApplicationBootstrap } from "@nestjs/common";
import { HttpAdapterHost } from "@nestjs/core";
import type { FastifyInstance, FastifyRequest } from "fastify";
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

type CountRequest = (request: FastifyRequest) => ReturnType<ReturnType<FastifyInstance["createRateLimit"]>>;

/**
 * The rate-limit counters, in Redis (shared by every API process) through @fastify/rate-limit's store: a
 * fixed window per counter, started by its first request. On the fail-fast connection (FastRedis).
 */
@Injectable()
export class RateLimitRepository implements OnApplicationBootstrap {
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
    private readonly redis: FastRedis,
    @Inject(REDIS_PREFIX) private readonly redisPrefix: string,
  ) {}

  /**
   * At bootstrap, once Nest has added its routes and set its error handler: registering a plugin makes
   * Fastify load what is queued, routes included, and each route keeps the error handler of that moment.
   */
  async onApplicationBootstrap(): Promise<void> {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const countOf = (request: FastifyRequest) => {
      const count = this.counts.get(request);
      if (!count) throw new Error("rate limit counted without a count");
      return count;
    };
    await fastify.register(fastifyRateLimit, {
      global: false,
      redis: this.redis.connection,
      nameSpace: `${this.redisPrefix}:rate-limit:`,
      keyGenerator: (request) => countOf(request).counter,
      max: (request) => countOf(request).perWindow,
      timeWindow: (request) => countOf(request).windowMs,
    });
    this.countRequest = fastify.createRateLimit();
  }

  /** Counts the request against `count.counter`; throws when Redis did not answer. */
  async count(request: FastifyRequest, count: RateLimitCount): Promise<RateLimitState> {
    const exceeded = this.exceededUntil.get(count.counter);
    if (exceeded && exceeded.perWindow === count.perWindow && exceeded.until > Date.now()) {
      const resetSeconds = Math.ceil((exceeded.until - Date.now()) / 1000);
      return { perWindow: count.perWindow, remaining: 0, resetSeconds, isExceeded: true };
    }
    if (!this.countRequest) throw new Error("rate limits are not ready");
    const countRequest = this.countRequest;
    this.counts.set(request, count);
    const result = await this.redis.run(() => countRequest(request));
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
