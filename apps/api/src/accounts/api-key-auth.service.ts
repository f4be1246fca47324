import type { Account, ApiKey } from "@imagehub/db";
import type { ApiKeyCheck } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { Forbidden, NotAuthenticated, TooManyAttempts } from "../common/domain-errors.js";
import { FailureDelayRepository, type FailurePolicy, secondsOf } from "../common/failure-delay.repository.js";
import { type AccountLimits, readAccountLimits } from "../common/rate-limits.js";
import { AccountsRepository, type ApiKeyWithAccount } from "./accounts.repository.js";
import { hashApiKey } from "./api-key.js";

/** Who makes a request: an API key on /v1, or a signed-in session of the web area (then `apiKey` is null). */
export interface Caller {
  account: Account;
  apiKey: ApiKey | null;
  /** Written into audit and ledger rows: "api-key:<id>" or "session:<id>". */
  actor: string;
  /** The account's own limits, where they differ from the configured ones. */
  limits: AccountLimits;
}

export interface ApiKeyCaller extends Caller {
  apiKey: ApiKey;
}

/** The longest an address that keeps sending wrong keys waits between two tries. */
const MAX_FAILURE_DELAY_MS = 60_000;

function tooManyFailures(waitMs: number): TooManyAttempts {
  const seconds = secondsOf(waitMs);
  return new TooManyAttempts(
    `too many invalid API keys from this address; try again in ${seconds} s`,
    seconds,
  );
}

/** lastUsedAt is a hint for people reviewing their keys; a minute's precision spares a write per request. */
const LAST_USED_PRECISION_MS = 60_000;

@Injectable()
export class ApiKeyAuthService {
  /**
   * Every request presents a key: reading it (and its account) from the database each time would cost more
   * than most routes' own work. Found keys are reused for apiKeyCacheSeconds; unknown keys are never kept.
   */
  private readonly recentKeys: LRUCache<string, ApiKeyWithAccount> | undefined;
  /**
   * Lookups under way, by key hash: the requests of one key that arrive while it is looked up (a burst as it
   * enters or leaves the cache) share that lookup, and its one write of lastUsedAt, rather than each taking
   * a pooled connection for the same row.
   */
  private readonly lookups = new Map<string, Promise<ApiKeyWithAccount | null>>();

  private readonly failurePolicy: FailurePolicy;

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly failures: FailureDelayRepository,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.failurePolicy = { freeFailures: config.apiKeyFreeFailures, maxDelayMs: MAX_FAILURE_DELAY_MS };
    this.recentKeys =
      config.apiKeyCacheSeconds > 0
        ? new LRUCache({
            max: 10_000,
            ttl: config.apiKeyCacheSeconds * 1000,
            // The clock looked up at each call (the cache's default is the one found at import), so that a
            // test's clock ages lookups too.
            perf: { now: () => performance.now() },
          })
        : undefined;
  }

  /**
   * The caller of `key`, sent from `address` (null: a check of the server's own, never slowed down). An
   * address whose keys keep failing must wait before its next lookup, longer after each further failure:
   * guessing keys costs the guesser time, and the database nothing once it waits. Keys known to this
   * process go through whatever their address did.
   */
  async authenticate(key: string | undefined, address: string | null): Promise<ApiKeyCaller> {
    if (!key) throw new NotAuthenticated("api-key header is missing");
    const hash = hashApiKey(key);
    const cached = this.recentKeys?.get(hash);
    const subject = address === null ? null : `api-key:${address}`;
    if (!cached && subject !== null) {
      const waitMs = await this.failures.waitOf(subject);
      if (waitMs > 0) throw tooManyFailures(waitMs);
    }
    const apiKey = cached ?? (await this.lookUp(hash));
    if (!apiKey || apiKey.revokedAt) {
      if (subject !== null) await this.failures.recordFailure(subject, this.failurePolicy);
      throw new NotAuthenticated(apiKey ? "api-key has been revoked" : "api-key is not valid");
    }
    const now = new Date();
    if (apiKey.expiresAt && apiKey.expiresAt <= now) {
      throw new NotAuthenticated(`api-key expired at ${apiKey.expiresAt.toISOString()}`);
    }
    if (apiKey.account.disabledAt) throw new Forbidden("this account is disabled: ask an admin");
    if (!cached) this.recentKeys?.set(hash, apiKey);
    if (!apiKey.lastUsedAt || now.getTime() - apiKey.lastUsedAt.getTime() > LAST_USED_PRECISION_MS) {
      apiKey.lastUsedAt = now;
      await this.accounts.touchApiKey(apiKey.id, now);
    }
    const { account, ...withoutAccount } = apiKey;
    return {
      account,
      apiKey: withoutAccount,
      actor: `api-key:${withoutAccount.id}`,
      limits: readAccountLimits(account.limits),
    };
  }

  private lookUp(hash: string): Promise<ApiKeyWithAccount | null> {
    const underWay = this.lookups.get(hash);
    if (underWay) return underWay;
    const lookup = this.accounts.findApiKeyByHash(hash).finally(() => this.lookups.delete(hash));
    this.lookups.set(hash, lookup);
    return lookup;
  }

  /** A key revoked by this process is refused by it at once, not after its cached lookup expires. */
  forget(hash: string): void {
    this.recentKeys?.delete(hash);
  }

  describe({ account, apiKey }: ApiKeyCaller): ApiKeyCheck {
    return {
      email: account.email,
      ...(account.name !== null && { name: account.name }),
      apiKeyId: apiKey.id,
      apiKeyPrefix: apiKey.prefix,
    };
  }
}
