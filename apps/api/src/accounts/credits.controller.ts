import {
  accountOperations,
  type CreditLedgerPage,
  type CreditLedgerQuery,
  type Credits,
  type Operation,
  operations,
} from "@imagehub/domain";
import { Controller, Query } from "@nestjs/common";
import { Endpoint } from "../common/endpoint.decorator.js";
import type { Caller } from "./api-key-auth.service.js";
import { CreditsService } from "./credits.service.js";
import { CurrentCaller } from "./current-caller.decorator.js";

/** The routes /v1 (by API key) and the web area (by session) both serve, each at its own operations. */
function creditRoutes(bound: Record<"list", Operation>) {
  @Controller()
  class CreditRoutes {
    constructor(readonly credits: CreditsService) {}

    @Endpoint(bound.list)
    list(@CurrentCaller() caller: Caller): Promise<Credits> {
      return this.credits.credits(caller.account.id);
    }
  }
  return CreditRoutes;
}

@Controller()
export class CreditsController extends creditRoutes({ list: operations.getCredits }) {}

/** The web area's credits page. */
@Controller()
export class AccountCreditsController extends creditRoutes({ list: accountOperations.getAccountCredits }) {
  @Endpoint(accountOperations.listAccountCreditLedger)
  ledger(@CurrentCaller() caller: Caller, @Query() query: CreditLedgerQuery): Promise<CreditLedgerPage> {
    return this.credits.ledger(caller.account.id, query);
  }
}
