import type { Account, Session } from "@imagehub/db";
import { Inject, Injectable } from "@nestjs/common";
import { type AuditEntry, writeAudit } from "../accounts/accounts.repository.js";
import { PRISMA, type PrismaClient } from "../common/core.module.js";

export type SignInLinkPurpose = "set-password" | "sign-in" | "reset-password";
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
      data: { passwordHash },
    });
  }

  /** A new password, the end of every session but `keptSessionId`, and the audit row: together. */
  async changePassword(
    accountId: string,
    passwordHash: string,
    keptSessionId: string,
    audit: AuditEntry,
  ): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.account.update({
        where: { id: accountId },
        data: { passwordHash },
      });
      await tx.session.deleteMany({ where: { accountId, id: { not: keptSessionId } } });
      await writeAudit(tx, audit);
    });
  }

  /** Live sessions of the account, newest first. */
  listLiveSessions(accountId: string, now: Date): Promise<Session[]> {
    return this.prisma.session.findMany({
      where: { accountId, expiresAt: { gt: now } },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    });
  }

  /** Ends one session of the account; false when it has no such session. */
  async deleteSessionOf(accountId: string, sessionId: string): Promise<boolean> {
    const { count } = await this.prisma.session.deleteMany({ where: { id: sessionId, accountId } });
    return count > 0;
  }

  /** Of these accounts, those with an invitation link out (not used, not expired). */
  async withPendingInvitation(accountIds: string[], now: Date): Promise<Set<string>> {
    const links = await this.prisma.signInLink.findMany({
      where: { accountId: { in: accountIds }, purpose: "set-password", usedAt: null, expiresAt: { gt: now } },
      select: { accountId: true },
      distinct: ["accountId"],
    });
    return new Set(links.map((link) => link.accountId));
  }

  /** Spends the account's pending invitation links, with the audit row; false when none was pending. */
  async cancelInvitation(accountId: string, now: Date, audit: AuditEntry): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.signInLink.updateMany({
        where: { accountId, purpose: "set-password", usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
      });
      if (count > 0) await writeAudit(tx, audit);
      return count > 0;
    });
  }

  /** Disables (ending its sessions) or enables the account, with the audit row. */
  async setDisabled(accountId: string, disabledAt: Date | null, audit: AuditEntry): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.account.update({ where: { id: accountId }, data: { disabledAt } });
      await writeAudit(tx, audit);
      if (disabledAt) await tx.session.deleteMany({ where: { accountId } });
    });
  }

  /**
   * Deletes what identifies the account and lets anyone in (email, name, password, keys, sessions, links,
   * webhooks). The row stays, anonymous and disabled, with its buckets, purchases and generations: the credit
   * ledger is append-only and refers to them. The audit row names the email that was.
   */
  async deleteAccount(accountId: string, now: Date, audit: AuditEntry): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await writeAudit(tx, audit);
      await tx.session.deleteMany({ where: { accountId } });
      await tx.signInLink.deleteMany({ where: { accountId } });
      await tx.webhook.deleteMany({ where: { accountId } });
      await tx.apiKey.deleteMany({ where: { accountId } });
      await tx.account.update({
        where: { id: accountId },
        data: {
          email: `deleted-${accountId}@deleted.invalid`,
          name: null,
          passwordHash: null,
          isAdmin: false,
          disabledAt: now,
          deletedAt: now,
        },
      });
    });
  }

  /** A new session; the account's expired ones go at the same time. */
  async createSession(data: {
    accountId: string;
    tokenHash: string;
    csrfToken: string;
    expiresAt: Date;
    userAgent: string | null;
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

  /**
   * A one-time link; with `audit`, its audit row lands in the same transaction, and with `endsSessions` the
   * account's sessions end in it too.
   */
  async createLink(
    data: { tokenHash: string; accountId: string; purpose: SignInLinkPurpose; expiresAt: Date },
    audit?: AuditEntry,
    { endsSessions = false } = {},
  ): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.signInLink.create({ data });
      // The audit row first: it names the actor's account through a session that may be about to end.
      if (audit) await writeAudit(tx, audit);
      if (endsSessions) await tx.session.deleteMany({ where: { accountId: data.accountId } });
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
