import {
  type AccountApiKey,
  type AccountApiKeyList,
  type AdminAccountList,
  type AdminAccountListQuery,
  type AdminSettings,
  type AuditLogPage,
  accountOperations,
  type Credits,
  type GrantCreditsRequest,
  type Invitation,
  type InviteAccountRequest,
  type IssuedLink,
  type QueryPagination,
  type SetAdminRequest,
  type SetDisabledRequest,
} from "@imagehub/domain";
import { Body, Controller, Param, Query } from "@nestjs/common";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { CurrentCaller } from "../accounts/current-caller.decorator.js";
import { Endpoint } from "../common/endpoint.decorator.js";
import { AccountPasswordsService } from "./account-passwords.service.js";
import { AdminAccountsService } from "./admin-accounts.service.js";

/** The admin area: accounts flagged admin only (the guard refuses the others with 403). */
@Controller()
export class AdminAccountsController {
  constructor(
    private readonly admin: AdminAccountsService,
    private readonly passwords: AccountPasswordsService,
  ) {}

  @Endpoint(accountOperations.adminSettings)
  settings(): AdminSettings {
    return this.admin.settings();
  }

  @Endpoint(accountOperations.listAccounts)
  list(@Query() query: AdminAccountListQuery): Promise<AdminAccountList> {
    return this.admin.list(query);
  }

  @Endpoint(accountOperations.inviteAccount)
  invite(@CurrentCaller() caller: Caller, @Body() request: InviteAccountRequest): Promise<Invitation> {
    return this.admin.invite(caller, request);
  }

  @Endpoint(accountOperations.grantAccountCredits)
  grantCredits(
    @CurrentCaller() caller: Caller,
    @Param("accountId") accountId: string,
    @Body() request: GrantCreditsRequest,
  ): Promise<Credits> {
    return this.admin.grantCredits(caller, accountId, request);
  }

  @Endpoint(accountOperations.listAccountApiKeysAsAdmin)
  listApiKeys(@Param("accountId") accountId: string): Promise<AccountApiKeyList> {
    return this.admin.listApiKeys(accountId);
  }

  @Endpoint(accountOperations.revokeAccountApiKeyAsAdmin)
  revokeApiKey(
    @CurrentCaller() caller: Caller,
    @Param("accountId") accountId: string,
    @Param("apiKeyId") apiKeyId: string,
  ): Promise<AccountApiKey> {
    return this.admin.revokeApiKey(caller, accountId, apiKeyId);
  }

  @Endpoint(accountOperations.setAccountAdmin)
  setAdmin(
    @CurrentCaller() caller: Caller,
    @Param("accountId") accountId: string,
    @Body() request: SetAdminRequest,
  ): Promise<SetAdminRequest> {
    return this.admin.setAdmin(caller, accountId, request);
  }

  @Endpoint(accountOperations.issuePasswordReset)
  issuePasswordReset(
    @CurrentCaller() caller: Caller,
    @Param("accountId") accountId: string,
  ): Promise<IssuedLink> {
    return this.passwords.issue(caller, accountId);
  }

  @Endpoint(accountOperations.setAccountDisabled)
  setDisabled(
    @CurrentCaller() caller: Caller,
    @Param("accountId") accountId: string,
    @Body() request: SetDisabledRequest,
  ): Promise<SetDisabledRequest> {
    return this.admin.setDisabled(caller, accountId, request);
  }

  @Endpoint(accountOperations.deleteAccount)
  deleteAccount(@CurrentCaller() caller: Caller, @Param("accountId") accountId: string): Promise<void> {
    return this.admin.deleteAccount(caller, accountId);
  }

  @Endpoint(accountOperations.cancelInvitation)
  cancelInvitation(@CurrentCaller() caller: Caller, @Param("accountId") accountId: string): Promise<void> {
    return this.admin.cancelInvitation(caller, accountId);
  }

  @Endpoint(accountOperations.listAuditLog)
  auditLog(@Query() page: QueryPagination): Promise<AuditLogPage> {
    return this.admin.auditLog(page);
  }
}
