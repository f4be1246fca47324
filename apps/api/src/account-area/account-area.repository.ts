import type { Account, Session } from "@imagehub/db";
import { Inject, Injectable } from "@nestjs/common";
import { type AuditEntry, writeAudit } from "../accounts/accounts.repository.js";
import { PRISMA, type PrismaClient } from "../common/core.module.js";

export type SignInLinkPurpose = "set-password" | "sign-in";
export type SessionWithAccount = Session & { account: Account };

/** Passwords, lock-outs, sessions and one-time links of the web area. */
@Injectable()
export class AccountAreaRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  findAccountByEmail(email: string): Promise<Account | null> {
    return this.prisma.account.findUnique({ where: { email } });
  }

  findAccount(id: string): Promise<Account | null> {
    return this.prisma.account.findUnique({ where: { id } });
  }

  async setPassword(accountId: string, passwordHash: string): Promise<void> {
    await this.prisma.account.update({
      where: { id: accountId },
      data: { passwordHash, failedSignIns: 0, lockedUntil: null },
    });
  }

  /** A new session; the account's expired ones go at the same time. */
  async createSession(data: {
    accountId: string;
    tokenHash: string;
    csrfToken: string;
    expiresAt: Date;
  }): Promise<Session> {
    const [, session] = await this.prisma.$transaction([
      this.prisma.session.deleteMany({ where: { accountId: data.accountId, expiresAt: { lt: new Date() } } }),
      this.prisma.session.create({ data }),
    ]);
    return session;
  }

  findLiveSession(tokenHash: string, now: Date): Promise<SessionWithAccount | null> {
    return this.prisma.session.findFirst({
      where: { tokenHash, expiresAt: { gt: now } },
      include: { account: true },
    });
  }

  async deleteSession(id: string): Promise<void> {
    await this.prisma.session.deleteMany({ where: { id } });
  }

  async deleteSessionsOf(accountId: string): Promise<void> {
    await this.prisma.session.deleteMany({ where: { accountId } });
  }

  /** A one-time link; with `audit`, its audit row lands in the same transaction. */
  async createLink(
    data: { tokenHash: string; accountId: string; purpose: SignInLinkPurpose; expiresAt: Date },
    audit?: AuditEntry,
  ): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.signInLink.create({ data });
      if (audit) await writeAudit(tx, audit);
    });
  }

  findLivePurpose(tokenHash: string, now: Date): Promise<{ purpose: string } | null> {
    return this.prisma.signInLink.findFirst({
      where: { tokenHash, usedAt: null, expiresAt: { gt: now } },
      select: { purpose: true },
    });
  }

  /** Spends the link; null when it is unknown, spent or expired (two tabs racing: one wins). */
  async spendLink(tokenHash: string, now: Date): Promise<string | null> {
    const [spent] = await this.prisma.$queryRaw<{ accountId: string }[]>`
      UPDATE sign_in_links SET used_at = ${now}
      WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${now}
      RETURNING account_id AS "accountId"`;
    return spent?.accountId ?? null;
  }
}
