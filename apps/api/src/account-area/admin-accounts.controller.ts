import {
  type AdminAccountList,
  type AdminAccountListQuery,
  type AdminSettings,
  accountOperations,
  type Credits,
  type GrantCreditsRequest,
  type Invitation,
  type InviteAccountRequest,
  type RevokedApiKeys,
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

  @Endpoint(accountOperations.revokeAccountApiKeys)
  revokeApiKeys(
    @CurrentCaller() caller: Caller,
    @Param("accountId") accountId: string,
  ): Promise<RevokedApiKeys> {
    return this.admin.revokeApiKeys(caller, accountId);
  }
}
