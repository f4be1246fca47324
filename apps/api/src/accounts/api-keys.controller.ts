import { type ApiKeyCheck, operations } from "@imagehub/domain";
import { Controller } from "@nestjs/common";
import { Endpoint } from "../common/endpoint.decorator.js";
import { ApiKeyAuthService, type ApiKeyCaller } from "./api-key-auth.service.js";
import { CurrentCaller } from "./current-caller.decorator.js";

@Controller()
export class ApiKeysController {
  constructor(private readonly auth: ApiKeyAuthService) {}

  @Endpoint(operations.checkApiKey)
  check(@CurrentCaller() caller: ApiKeyCaller): ApiKeyCheck {
    return this.auth.describe(caller);
  }
}
