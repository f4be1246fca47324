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
  type QueryPagination,
  type SetAdminRequest,
} from "@imagehub/domain";
import { Body, Controller, Param, Query } from "@nestjs/common";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { CurrentCaller } from "../common/api-key.guard.js";
import { Endpoint } from "../common/endpoint.decorator.js";
import { AdminAccountsService } from "./admin-accounts.service.js";

/** The admin area: accounts flagged admin only (the guard refuses the others with 403). */
@Controller()
export class AdminAccountsController {
  constructor(private readonly admin: AdminAccountsService) {}

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

  @Endpoint(accountOperations.listAuditLog)
  auditLog(@Query() page: QueryPagination): Promise<AuditLogPage> {
    return this.admin.auditLog(page);
  }
}
