import {
  type AccountApiKey,
  type AccountApiKeyList,
  accountOperations,
  type CreateApiKeyRequest,
  type CreatedApiKey,
} from "@imagehub/domain";
import { Body, Controller, Param } from "@nestjs/common";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { CurrentCaller } from "../accounts/current-caller.decorator.js";
import { Endpoint } from "../common/endpoint.decorator.js";
import { AccountApiKeysService } from "./account-api-keys.service.js";

@Controller()
export class AccountApiKeysController {
  constructor(private readonly apiKeys: AccountApiKeysService) {}

  @Endpoint(accountOperations.listApiKeys)
  list(@CurrentCaller() caller: Caller): Promise<AccountApiKeyList> {
    return this.apiKeys.list(caller);
  }

  @Endpoint(accountOperations.createApiKey)
  create(@CurrentCaller() caller: Caller, @Body() request: CreateApiKeyRequest): Promise<CreatedApiKey> {
    return this.apiKeys.create(caller, request);
  }

  @Endpoint(accountOperations.revokeApiKey)
  revoke(@CurrentCaller() caller: Caller, @Param("apiKeyId") apiKeyId: string): Promise<AccountApiKey> {
    return this.apiKeys.revoke(caller, apiKeyId);
  }
}
