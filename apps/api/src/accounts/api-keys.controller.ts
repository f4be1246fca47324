import { type ApiKeyCheck, operations } from "@imagehub/domain";
import { Controller } from "@nestjs/common";
import { CurrentCaller } from "../common/api-key.guard.js";
import { Endpoint } from "../common/endpoint.decorator.js";
import { ApiKeyAuthService, type ApiKeyCaller } from "./api-key-auth.service.js";

@Controller()
export class ApiKeysController {
  constructor(private readonly auth: ApiKeyAuthService) {}

  @Endpoint(operations.checkApiKey)
  check(@CurrentCaller() caller: ApiKeyCaller): ApiKeyCheck {
    return this.auth.describe(caller);
  }
}
