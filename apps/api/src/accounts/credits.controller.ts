import { type Credits, operations } from "@imagehub/domain";
import { Controller } from "@nestjs/common";
import { CurrentCaller } from "../common/api-key.guard.js";
import { Endpoint } from "../common/endpoint.decorator.js";
import type { Caller } from "./api-key-auth.service.js";
import { CreditsService } from "./credits.service.js";

@Controller()
export class CreditsController {
  constructor(private readonly credits: CreditsService) {}

  @Endpoint(operations.getCredits)
  list(@CurrentCaller() caller: Caller): Promise<Credits> {
    return this.credits.credits(caller.account.id);
  }
}
