import type { Account, ApiKey } from "@imagehub/db";
import type { CreditBucketType, Plan } from "@imagehub/domain";
import { Injectable } from "@nestjs/common";
import { Conflict, NotFound } from "../common/domain-errors.js";
import {
  type AccountLimitName,
  type AccountLimits,
  AccountLimitsSchema,
  readAccountLimits,
} from "../common/rate-limits.js";
import { AccountsRepository, type AccountsTransaction, type ApiKeyTerms } from "./accounts.repository.js";
import { generateApiKey } from "./api-key.js";

export type StartingCredits = Partial<Record<CreditBucketType, number>>;

export interface NewAccount {
  email: string;
  name?: string | undefined;
  plan: Plan;
  /** Each bucket starts full: its balance and its creditTotal are this amount. */
  credits: StartingCredits;
  /** Restore the buckets to their creditTotal every month (see the credits.renew job). */
  renewsMonthly?: boolean | undefined;
  /** argon2id of the web area's password (open sign-up); otherwise set later through a one-time link. */
  passwordHash?: string | undefined;
  actor: string;
}

export interface CreatedApiKey {
  apiKey: ApiKey;
  /** The key itself: shown once, never stored. */
  key: string;
}

/** Account administration (admin CLI, the web area's admin pages, demo account). Every change writes its audit or ledger rows with it. */
@Injectable()
export class AccountsService {
  constructor(private readonly accounts: AccountsRepository) {}

  createAccount(input: NewAccount): Promise<Account> {
    return this.accounts.transaction(async (tx) => {
      return this.createAccountIn(tx, input);
    });
  }

  /** `maxLiveKeys`: refused (Conflict) when the account has that many keys not revoked already. */
  createApiKey(input: {
    email: string;
    name: string;
    actor: string;
    terms?: ApiKeyTerms;
    maxLiveKeys?: number;
  }): Promise<CreatedApiKey> {
    return this.accounts.transaction(async (tx) => {
      const account = await requireAccount(tx, input.email);
      if (input.maxLiveKeys !== undefined) {
        await tx.lockAccount(account.id);
        if ((await tx.countLiveApiKeys(account.id)) >= input.maxLiveKeys) {
          throw new Conflict(
            `this account has ${input.maxLiveKeys} API keys, the most it may have: revoke one first`,
          );
        }
      }
      return this.createApiKeyIn(tx, account, input.name, input.actor, input.terms);
    });
  }

  /** Creates an account with one API key, atomically: the demo account and tests start from this. */
  createAccountWithKey(
    input: NewAccount & { keyName: string },
  ): Promise<CreatedApiKey & { account: Account }> {
    return this.accounts.transaction(async (tx) => {
      const account = await this.createAccountIn(tx, input);
      return { account, ...(await this.createApiKeyIn(tx, account, input.keyName, input.actor)) };
    });
  }

  listApiKeys(email: string): Promise<ApiKey[]> {
    return this.accounts.transaction(async (tx) => tx.listApiKeys((await requireAccount(tx, email)).id));
  }

  revokeApiKey(input: { email: string; apiKeyId: string; actor: string }): Promise<ApiKey> {
    return this.accounts.transaction(async (tx) => {
      const account = await requireAccount(tx, input.email);
      const keys = await tx.listApiKeys(account.id);
      const apiKey = keys.find((key) => key.id === input.apiKeyId);
      if (!apiKey) throw new NotFound(`no API key ${input.apiKeyId} on account ${input.email}`);
      return revokeIn(tx, apiKey, input.actor);
    });
  }

  /** Opens or closes the admin area to the account; an audit row records a change. */
  setAdmin(input: { accountId: string; isAdmin: boolean; actor: string }): Promise<Account> {
    return this.accounts.transaction(async (tx) => {
      const account = await tx.findAccountById(input.accountId);
      if (!account) throw new NotFound(`no account with id ${input.accountId}`);
      if (account.isAdmin === input.isAdmin) return account;
      const updated = await tx.setAdmin(account.id, input.isAdmin);
      await tx.audit({
        accountId: account.id,
        actor: input.actor,
        action: input.isAdmin ? "account.admin_granted" : "account.admin_revoked",
        details: { email: account.email },
      });
      return updated;
    });
  }

  listAudit(page: { limit: number; offset: number }) {
    return this.accounts.listAudit(page);
  }

  listAccounts(query: { search?: string | undefined; limit: number; offset: number }) {
    return this.accounts.listAccounts(query);
  }

  async hasAccount(email: string): Promise<boolean> {
    return (await this.accounts.findAccountByEmail(email)) !== null;
  }

  /** The account of an id, for the admin area's routes, which name accounts by id. */
  async requireAccountById(id: string): Promise<Account> {
    const account = await this.accounts.findAccount(id);
    if (!account) throw new NotFound(`no account with id ${id}`);
    return account;
  }

  /** The account's own limits (see `common/rate-limits.ts`). */
  async limitsOf(email: string): Promise<AccountLimits> {
    const account = await this.accounts.transaction((tx) => requireAccount(tx, email));
    return readAccountLimits(account.limits);
  }

  /**
   * Changes some of the account's own limits: a number replaces the default, null goes back to it. API
   * processes apply the change within API_KEY_CACHE_SECONDS (they reuse a key's account that long).
   */
  setLimits(input: {
    email: string;
    changes: Partial<Record<AccountLimitName, number | null>>;
    actor: string;
  }): Promise<AccountLimits> {
    return this.accounts.transaction(async (tx) => {
      const account = await requireAccount(tx, input.email);
      const limits: Record<string, number | undefined> = { ...readAccountLimits(account.limits) };
      for (const [name, value] of Object.entries(input.changes)) limits[name] = value ?? undefined;
      const kept = Object.entries(AccountLimitsSchema.parse(limits)).filter(
        ([, value]) => value !== undefined,
      );
      const updated = await tx.setLimits(account.id, Object.fromEntries(kept));
      await tx.audit({
        accountId: account.id,
        actor: input.actor,
        action: "account.limits_changed",
        details: { changes: input.changes },
      });
      return readAccountLimits(updated.limits);
    });
  }

  /** Adds credits (takes them away when negative): one ledger entry, naming the actor, records it. */
  grantCredits(input: {
    email: string;
    type: CreditBucketType;
    amount: number;
    actor: string;
    reference?: string | undefined;
  }): Promise<void> {
    return this.accounts.transaction(async (tx) => {
      const account = await requireAccount(tx, input.email);
      if (input.amount < 0) {
        const bucket = await tx.findBucket(account.id, input.type);
        const balance = bucket?.balance ?? 0;
        if (!bucket?.unlimited && balance + input.amount < 0) {
          throw new Conflict(
            `cannot take ${-input.amount} ${input.type} credits away: the bucket holds ${balance}`,
          );
        }
      }
      await tx.credit({ accountId: account.id, ...input });
      await tx.audit({
        accountId: account.id,
        actor: input.actor,
        action: "credits.granted",
        details: { type: input.type, amount: input.amount, reference: input.reference ?? null },
      });
    });
  }

  private async createAccountIn(tx: AccountsTransaction, input: NewAccount): Promise<Account> {
    const account = await tx.createAccount({
      email: input.email,
      name: input.name,
      plan: input.plan,
      passwordHash: input.passwordHash,
    });
    await tx.audit({
      accountId: account.id,
      actor: input.actor,
      action: "account.created",
      details: { email: account.email, plan: account.plan },
    });
    const renewsAt = input.renewsMonthly ? oneMonthAfter(new Date()) : undefined;
    for (const [type, amount] of Object.entries(input.credits) as [CreditBucketType, number][]) {
      await tx.credit({
        accountId: account.id,
        type,
        amount,
        creditTotal: amount,
        renewsAt,
        actor: input.actor,
      });
    }
    return account;
  }

  private async createApiKeyIn(
    tx: AccountsTransaction,
    account: Account,
    name: string,
    actor: string,
    terms: ApiKeyTerms = {},
  ) {
    const { key, hash, prefix } = generateApiKey();
    const apiKey = await tx.createApiKey({ accountId: account.id, name, prefix, hash, ...terms });
    await tx.audit({
      accountId: account.id,
      actor,
      action: "api_key.created",
      details: {
        apiKeyId: apiKey.id,
        prefix,
        scope: apiKey.scope,
        expiresAt: apiKey.expiresAt?.toISOString() ?? null,
      },
    });
    return { apiKey, key };
  }
}

async function revokeIn(tx: AccountsTransaction, apiKey: ApiKey, actor: string): Promise<ApiKey> {
  const revoked = await tx.revokeApiKey(apiKey.id, new Date());
  await tx.audit({
    accountId: apiKey.accountId,
    actor,
    action: "api_key.revoked",
    details: { apiKeyId: apiKey.id },
  });
  return revoked;
}

async function requireAccount(tx: AccountsTransaction, email: string): Promise<Account> {
  const account = await tx.findAccountByEmail(email);
  if (!account) throw new NotFound(`no account with email ${email}`);
  return account;
}

function oneMonthAfter(date: Date): Date {
  const next = new Date(date);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return next;
}
