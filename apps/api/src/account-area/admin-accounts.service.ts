import type {
  AccountApiKey,
  AccountApiKeyList,
  AdminAccountList,
  AdminAccountListQuery,
  AdminSettings,
  AuditLogPage,
  Credits,
  GrantCreditsRequest,
  Invitation,
  InviteAccountRequest,
  SetAdminRequest,
  SetDisabledRequest,
} from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { AccountsService } from "../accounts/accounts.service.js";
import { ApiKeyAuthService, type Caller } from "../accounts/api-key-auth.service.js";
import { CreditsService } from "../accounts/credits.service.js";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { Conflict, NotFound } from "../common/domain-errors.js";
import { QUEUE_DASHBOARD_PATH } from "../queue-dashboard/queue-dashboard.js";
import { toAccountApiKey } from "./account-api-keys.service.js";
import { AccountAreaRepository } from "./account-area.repository.js";
import { InvitationMailRepository } from "./invitation-mail.repository.js";
import { InvitationsService } from "./invitations.service.js";

/** The admin area: the admin CLI's services, acting as the signed-in admin's session. */
@Injectable()
export class AdminAccountsService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly credits: CreditsService,
    private readonly auth: ApiKeyAuthService,
    private readonly invitations: InvitationsService,
    private readonly mail: InvitationMailRepository,
    private readonly area: AccountAreaRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  settings(): AdminSettings {
    return {
      queueDashboardPath: this.config.queueDashboard ? QUEUE_DASHBOARD_PATH : null,
      isMailConfigured: this.mail.isConfigured,
    };
  }

  async list(query: AdminAccountListQuery): Promise<AdminAccountList> {
    const { total, accounts } = await this.accounts.listAccounts(query);
    const invited = await this.area.withPendingInvitation(
      accounts.map((account) => account.id),
      new Date(),
    );
    return {
      filteredResults: total,
      accounts: accounts.map((account) => ({
        id: account.id,
        email: account.email,
        name: account.name,
        plan: account.plan,
        isAdmin: account.isAdmin,
        createdAt: account.createdAt.toISOString(),
        hasPassword: account.passwordHash !== null,
        hasPendingInvitation: invited.has(account.id),
        isDisabled: account.disabledAt !== null,
        liveApiKeyCount: account.liveApiKeyCount,
      })),
    };
  }

  invite(caller: Caller, request: InviteAccountRequest): Promise<Invitation> {
    return this.invitations.invite({ ...request, actor: caller.actor });
  }

  async grantCredits(caller: Caller, accountId: string, request: GrantCreditsRequest): Promise<Credits> {
    const account = await this.accounts.requireAccountById(accountId);
    await this.accounts.grantCredits({
      email: account.email,
      type: request.type,
      amount: request.amount,
      reference: request.note,
      actor: caller.actor,
    });
    return this.credits.credits(account.id);
  }

  async listApiKeys(accountId: string): Promise<AccountApiKeyList> {
    const account = await this.accounts.requireAccountById(accountId);
    return { apiKeys: (await this.accounts.listApiKeys(account.email)).map(toAccountApiKey) };
  }

  async revokeApiKey(caller: Caller, accountId: string, apiKeyId: string): Promise<AccountApiKey> {
    const account = await this.accounts.requireAccountById(accountId);
    const apiKey = await this.accounts.revokeApiKey({ email: account.email, apiKeyId, actor: caller.actor });
    this.auth.forget(apiKey.hash);
    return toAccountApiKey(apiKey);
  }

  async setAdmin(caller: Caller, accountId: string, request: SetAdminRequest): Promise<SetAdminRequest> {
    if (accountId === caller.account.id && !request.isAdmin) {
      throw new Conflict("an admin cannot unmake themselves: ask another admin");
    }
    const account = await this.accounts.setAdmin({
      accountId,
      isAdmin: request.isAdmin,
      actor: caller.actor,
    });
    return { isAdmin: account.isAdmin };
  }

  async setDisabled(
    caller: Caller,
    accountId: string,
    request: SetDisabledRequest,
  ): Promise<SetDisabledRequest> {
    if (accountId === caller.account.id && request.isDisabled) {
      throw new Conflict("an admin cannot disable themselves: ask another admin");
    }
    const account = await this.accounts.requireAccountById(accountId);
    await this.area.setDisabled(account.id, request.isDisabled ? new Date() : null, {
      accountId: account.id,
      actor: caller.actor,
      action: request.isDisabled ? "account.disabled" : "account.enabled",
      details: { email: account.email },
    });
    // Keys this process keeps in its cache are refused at once, not after the cache's lifetime.
    if (request.isDisabled) await this.forgetKeysOf(account.email);
    return { isDisabled: request.isDisabled };
  }

  async deleteAccount(caller: Caller, accountId: string): Promise<void> {
    if (accountId === caller.account.id) {
      throw new Conflict("an admin cannot delete themselves: ask another admin");
    }
    const account = await this.accounts.requireAccountById(accountId);
    await this.forgetKeysOf(account.email);
    await this.area.deleteAccount(account.id, new Date(), {
      accountId: account.id,
      actor: caller.actor,
      action: "account.deleted",
      details: { email: account.email },
    });
  }

  async cancelInvitation(caller: Caller, accountId: string): Promise<void> {
    const account = await this.accounts.requireAccountById(accountId);
    const isCancelled = await this.area.cancelInvitation(account.id, new Date(), {
      accountId: account.id,
      actor: caller.actor,
      action: "account.invitation_cancelled",
      details: { email: account.email },
    });
    if (!isCancelled) throw new NotFound(`no invitation is pending for ${account.email}`);
  }

  private async forgetKeysOf(email: string): Promise<void> {
    for (const apiKey of await this.accounts.listApiKeys(email)) this.auth.forget(apiKey.hash);
  }

  async auditLog(page: { limit: number; offset: number }): Promise<AuditLogPage> {
    const { total, entries } = await this.accounts.listAudit(page);
    return {
      filteredResults: total,
      entries: entries.map((entry) => ({
        id: entry.id.toString(),
        createdAt: entry.createdAt.toISOString(),
        action: entry.action,
        actor: entry.actor,
        actorEmail: entry.actorAccount?.email ?? null,
        accountEmail: entry.account?.email ?? null,
        details: entry.details as Record<string, unknown>,
      })),
    };
  }
}
