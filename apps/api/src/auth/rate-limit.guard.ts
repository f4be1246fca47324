import type { Operation } from "@imagehub/domain";
import {
  type CanActivate,
  type ExecutionContext,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  Logger,
} from "@nestjs/common";
import { Reflector } from "@nestjs/core";
import type { FastifyReply } from "fastify";
import type { RequestWithCaller } from "../accounts/current-caller.decorator.js";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { OPERATION } from "../common/endpoint.decorator.js";
import { RateLimitRepository, type RateLimitState } from "../common/rate-limit.repository.js";
import { budgetOf, LOCALLY_COUNTED_BUDGETS, type RateLimitBudget } from "../common/rate-limits.js";

/** While Redis is away every request would say so: one warning every 10 s is enough. */
const WARNING_INTERVAL_MS = 10_000;

/**
 * Counts each request against its route's budget, per account (per client address on routes called
 * without a key), after authentication: an account's own limits apply to all its keys and sessions. Over the budget:
 * 429 with Retry-After. Every counted answer carries the RateLimit-* headers of the IETF draft. When Redis
 * does not answer the request goes through, with a logged warning: rate limits protect the service, and
 * refusing everything would be the outage they are there to prevent.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly logger = new Logger("RateLimits");
  private lastWarningAt = 0;

  constructor(
    private readonly reflector: Reflector,
    private readonly counters: RateLimitRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const operation = this.reflector.get<Operation | undefined>(OPERATION, context.getHandler());
    const budget = budgetOf(operation?.operationId);
    if (!budget) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<RequestWithCaller>();
    const caller = request.caller;
    const perWindow = caller?.limits[budget] ?? this.config.rateLimits.perWindow[budget];
    if (perWindow === 0) return true;
    // Every key and session of an account share its budgets: a new key buys no more requests.
    const subject = caller ? `account:${caller.account.id}` : `address:${request.ip}`;
    const windowMs = this.config.rateLimits.windowSeconds * 1000;
    let state: RateLimitState;
    try {
      state = await this.counters.count({
        counter: `${budget}:${subject}`,
        perWindow,
        windowMs,
        isCountedLocally: LOCALLY_COUNTED_BUDGETS.has(budget),
      });
    } catch (error) {
      this.warnUncounted(error as Error);
      return true;
    }
    const reply = http.getResponse<FastifyReply>();
    void reply.headers({
      "ratelimit-policy": `${perWindow};w=${this.config.rateLimits.windowSeconds}`,
      "ratelimit-limit": perWindow,
      "ratelimit-remaining": state.remaining,
      "ratelimit-reset": state.resetSeconds,
    });
    if (!state.isExceeded) return true;
    void reply.header("retry-after", state.resetSeconds);
    throw new HttpException(
      `rate limit reached: ${perWindow} ${describe(budget)} per ${this.config.rateLimits.windowSeconds} s ${caller ? "for this account" : "from this address"}; retry in ${state.resetSeconds} s`,
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }

  private warnUncounted(error: Error): void {
    if (Date.now() - this.lastWarningAt < WARNING_INTERVAL_MS) return;
    this.lastWarningAt = Date.now();
    this.logger.warn(`rate limits not applied, Redis did not answer: ${error.message}`);
  }
}

function describe(budget: RateLimitBudget): string {
  switch (budget) {
    case "general":
      return "requests";
    case "search":
      return "searches";
    case "generation-create":
      return "generation creates and retries";
    case "webhook-test":
      return "webhook tests";
    case "display":
      return "image displays";
    case "api-key-create":
      return "API key creations";
  }
}
