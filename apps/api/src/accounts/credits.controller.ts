import {
  accountOperations,
  type CreditLedgerPage,
  type CreditLedgerQuery,
  type Credits,
  operations,
} from "@imagehub/domain";
import { Controller, Query } from "@nestjs/common";
import { Endpoint } from "../common/endpoint.decorator.js";
import type { Caller } from "./api-key-auth.service.js";
import { CreditsService } from "./credits.service.js";
import { CurrentCaller } from "./current-caller.decorator.js";

/** The credits of the caller's account, at /v1. */
@Controller()
export class CreditsController {
  constructor(private readonly credits: CreditsService) {}

  @Endpoint(operations.getCredits)
  list(@CurrentCaller() caller: Caller): Promise<Credits> {
    return this.credits.credits(caller.account.id);
  }
}

/** The web area's credits page. */
@Controller()
export class AccountCreditsController {
  constructor(private readonly credits: CreditsService) {}

  @Endpoint(accountOperations.getAccountCredits)
  list(@CurrentCaller() caller: Caller): Promise<Credits> {
    return this.credits.credits(caller.account.id);
  }

  @Endpoint(accountOperations.listAccountCreditLedger)
  ledger(@CurrentCaller() caller: Caller, @Query() query: CreditLedgerQuery): Promise<CreditLedgerPage> {
    return this.credits.ledger(caller.account.id, query);
  }
}
