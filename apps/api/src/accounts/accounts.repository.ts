import {
  type Account,
  type ApiKey,
  type AuditLog,
  type CreditBucketType,
  type CreditLedgerEntry,
  type Plan,
  Prisma,
} from "@imagehub/db";
import type { ApiKeyScope } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { PRISMA, type PrismaClient } from "../common/core.module.js";
import { Conflict } from "../common/domain-errors.js";

export type ApiKeyWithAccount = ApiKey & { account: Account };

/** What a key may do, and until when (see the api_keys table). */
export interface ApiKeyTerms {
  scope?: ApiKeyScope | undefined;
  expiresAt?: Date | undefined;
}

export type AccountWithKeyCount = Account & { liveApiKeyCount: number };

export type AuditEntryWithAccounts = AuditLog & {
  account: { email: string } | null;
  actorAccount: { email: string } | null;
};

export interface AuditEntry {
  accountId: string;
  actor: string;
  action: string;
  details: Prisma.InputJsonObject;
}

export type LedgerEntryWithType = CreditLedgerEntry & { type: CreditBucketType };

export interface BucketBalance {
  type: CreditBucketType;
  creditTotal: number;
  unlimited: boolean;
  balance: number;
}

/** Accounts, API keys, credit buckets and their ledger, and the audit log. */
@Injectable()
export class AccountsRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  findApiKeyByHash(hash: string): Promise<ApiKeyWithAccount | null> {
    return this.prisma.apiKey.findUnique({ where: { hash }, include: { account: true } });
  }

  async touchApiKey(id: string, usedAt: Date): Promise<void> {
    await this.prisma.apiKey.update({ where: { id }, data: { lastUsedAt: usedAt } });
  }

  async balances(accountId: string): Promise<BucketBalance[]> {
    return this.prisma.creditBucket.findMany({
      where: { accountId },
      orderBy: { type: "asc" },
      select: { type: true, creditTotal: true, unlimited: true, balance: true },
    });
  }

  /** Newest first: at most `limit` entries of every bucket of the account, older than the entry `beforeId`. */
  async ledger(
    accountId: string,
    page: { beforeId: bigint | undefined; limit: number },
  ): Promise<LedgerEntryWithType[]> {
    const entries = await this.prisma.creditLedgerEntry.findMany({
      where: { bucket: { accountId }, ...(page.beforeId !== undefined && { id: { lt: page.beforeId } }) },
      orderBy: { id: "desc" },
      take: page.limit,
      include: { bucket: { select: { type: true } } },
    });
    return entries.map(({ bucket, ...entry }) => ({ ...entry, type: bucket.type }));
  }

  /** Newest first; `search` matches part of the email or name, whatever the case. */
  async listAccounts(query: {
    search?: string | undefined;
    limit: number;
    offset: number;
  }): Promise<{ total: number; accounts: AccountWithKeyCount[] }> {
    const where: Prisma.AccountWhereInput = {
      deletedAt: null,
      ...(query.search && {
        OR: [
          { email: { contains: query.search, mode: "insensitive" } },
          { name: { contains: query.search, mode: "insensitive" } },
        ],
      }),
    };
    const [total, accounts] = await this.prisma.$transaction([
      this.prisma.account.count({ where }),
      this.prisma.account.findMany({
        where,
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        skip: query.offset,
        take: query.limit,
        include: { _count: { select: { apiKeys: { where: { revokedAt: null } } } } },
      }),
    ]);
    return {
      total,
      accounts: accounts.map(({ _count, ...account }) => ({ ...account, liveApiKeyCount: _count.apiKeys })),
    };
  }

  findAccount(id: string): Promise<Account | null> {
    return this.prisma.account.findUnique({ where: { id } });
  }

  findAccountByEmail(email: string): Promise<Account | null> {
    return this.prisma.account.findUnique({ where: { email } });
  }

  /** Newest first, with the emails of the account changed and of the one that made the change. */
  async listAudit(page: {
    limit: number;
    offset: number;
  }): Promise<{ total: number; entries: AuditEntryWithAccounts[] }> {
    const [total, entries] = await this.prisma.$transaction([
      this.prisma.auditLog.count(),
      this.prisma.auditLog.findMany({
        orderBy: { id: "desc" },
        skip: page.offset,
        take: page.limit,
        include: { account: { select: { email: true } }, actorAccount: { select: { email: true } } },
      }),
    ]);
    return { total, entries };
  }

  /**
   * Restores up to `limit` buckets whose renewal is due to their creditTotal, with one `renewal` ledger
   * entry each (none when the balance is already there), and moves their renewal date past `now` by whole
   * months. Buckets being renewed by another worker are skipped, never renewed twice. Returns how many.
   */
  async renewDueBuckets(now: Date, limit: number): Promise<number> {
    const renewed = await this.prisma.$queryRaw<{ id: string }[]>`
      WITH due AS (
        SELECT id, credit_total, balance, renews_at FROM credit_buckets
        WHERE renews_at <= ${now} ORDER BY renews_at LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ), restored AS (
        -- Its ledger trigger runs at the end of the statement, after the UPDATE below: no row is updated twice.
        INSERT INTO credit_ledger (bucket_id, amount, reason, actor)
        SELECT id, credit_total - balance, 'renewal'::"CreditEntryReason", 'system' FROM due
        WHERE balance < credit_total
      )
      UPDATE credit_buckets bucket
      SET renews_at = due.renews_at + make_interval(months => 1 + (
        EXTRACT(YEAR FROM age(${now}::timestamptz, due.renews_at)) * 12
        + EXTRACT(MONTH FROM age(${now}::timestamptz, due.renews_at)))::int)
      FROM due WHERE bucket.id = due.id
      RETURNING bucket.id`;
    return renewed.length;
  }

  /**
   * Runs `work` in one transaction: an account change and its audit or ledger rows land together. Every
   * read inside goes through the transaction too (an embedded database has a single connection).
   */
  transaction<T>(work: (tx: AccountsTransaction) => Promise<T>): Promise<T> {
    return this.prisma.$transaction((client) => work(new AccountsTransaction(client)));
  }
}

export class AccountsTransaction {
  constructor(private readonly tx: Prisma.TransactionClient) {}

  findAccountByEmail(email: string): Promise<Account | null> {
    return this.tx.account.findUnique({ where: { email } });
  }

  findAccountById(id: string): Promise<Account | null> {
    return this.tx.account.findUnique({ where: { id } });
  }

  findBucket(accountId: string, type: CreditBucketType) {
    return this.tx.creditBucket.findUnique({ where: { accountId_type: { accountId, type } } });
  }

  listApiKeys(accountId: string): Promise<ApiKey[]> {
    return this.tx.apiKey.findMany({ where: { accountId }, orderBy: { createdAt: "asc" } });
  }

  /** Holds the account's row until the transaction ends: its changes that count something go one at a time. */
  async lockAccount(accountId: string): Promise<void> {
    await this.tx.$queryRaw`SELECT 1 FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
  }

  countLiveApiKeys(accountId: string): Promise<number> {
    return this.tx.apiKey.count({ where: { accountId, revokedAt: null } });
  }

  async createAccount(data: {
    email: string;
    name?: string | undefined;
    plan: Plan;
    passwordHash?: string | undefined;
  }): Promise<Account> {
    try {
      return await this.tx.account.create({ data });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
        throw new Conflict(`an account with email ${data.email} already exists`);
      }
      throw error;
    }
  }

  createApiKey(
    data: { accountId: string; name: string; prefix: string; hash: string } & ApiKeyTerms,
  ): Promise<ApiKey> {
    return this.tx.apiKey.create({ data });
  }

  setLimits(accountId: string, limits: Prisma.InputJsonObject): Promise<Account> {
    return this.tx.account.update({ where: { id: accountId }, data: { limits } });
  }

  revokeApiKey(id: string, revokedAt: Date): Promise<ApiKey> {
    return this.tx.apiKey.update({ where: { id }, data: { revokedAt } });
  }

  /** Adds `amount` (negative to take away) to the account's bucket of `type`, creating it on first use. */
  async credit(input: {
    accountId: string;
    type: CreditBucketType;
    amount: number;
    creditTotal?: number | undefined;
    renewsAt?: Date | undefined;
    actor: string;
    reference?: string | undefined;
  }): Promise<void> {
    const bucket = await this.tx.creditBucket.upsert({
      where: { accountId_type: { accountId: input.accountId, type: input.type } },
      create: {
        accountId: input.accountId,
        type: input.type,
        creditTotal: input.creditTotal ?? input.amount,
        renewsAt: input.renewsAt ?? null,
      },
      update: input.creditTotal === undefined ? {} : { creditTotal: input.creditTotal },
    });
    await this.tx.creditLedgerEntry.create({
      data: {
        bucketId: bucket.id,
        amount: input.amount,
        reason: input.amount >= 0 ? "grant" : "adjustment",
        actor: input.actor,
        reference: input.reference ?? null,
      },
    });
  }

  async audit(entry: AuditEntry): Promise<void> {
    await writeAudit(this.tx, entry);
  }

  setAdmin(accountId: string, isAdmin: boolean): Promise<Account> {
    return this.tx.account.update({ where: { id: accountId }, data: { isAdmin } });
  }
}

/**
 * Writes an audit row with the account behind its actor ("session:<id>", "api-key:<id>"): who made the change
 * stays known after the session ends or the key is revoked.
 */
export async function writeAudit(tx: Prisma.TransactionClient, entry: AuditEntry): Promise<void> {
  const [kind, id] = entry.actor.split(":");
  const actorAccountId =
    kind === "session" && id
      ? (await tx.session.findUnique({ where: { id }, select: { accountId: true } }))?.accountId
      : kind === "api-key" && id
        ? (await tx.apiKey.findUnique({ where: { id }, select: { accountId: true } }))?.accountId
        : undefined;
  await tx.auditLog.create({ data: { ...entry, actorAccountId: actorAccountId ?? null } });
}
