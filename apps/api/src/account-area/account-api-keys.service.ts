import type { ApiKey } from "@imagehub/db";
import type {
  AccountApiKey,
  AccountApiKeyList,
  ApiKeyScope,
  CreateApiKeyRequest,
  CreatedApiKey,
} from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { AccountsService } from "../accounts/accounts.service.js";
import { ApiKeyAuthService, type Caller } from "../accounts/api-key-auth.service.js";
import { APP_CONFIG, type AppConfig } from "../common/config.js";

/** The API keys page: the admin CLI's operations, for the signed-in account, with the same audit rows. */
@Injectable()
export class AccountApiKeysService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly auth: ApiKeyAuthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(caller: Caller): Promise<AccountApiKeyList> {
    return { apiKeys: (await this.accounts.listApiKeys(caller.account.email)).map(toAccountApiKey) };
  }

  async create(caller: Caller, request: CreateApiKeyRequest): Promise<CreatedApiKey> {
    const { apiKey, key } = await this.accounts.createApiKey({
      email: caller.account.email,
      name: request.name,
      actor: caller.actor,
      terms: {
        scope: request.scope,
        expiresAt: request.expiresAt === undefined ? undefined : new Date(request.expiresAt),
      },
      maxLiveKeys: this.config.apiKeysPerAccount,
    });
    return { apiKey: toAccountApiKey(apiKey), key };
  }

  async revoke(caller: Caller, apiKeyId: string): Promise<AccountApiKey> {
    const apiKey = await this.accounts.revokeApiKey({
      email: caller.account.email,
      apiKeyId,
      actor: caller.actor,
    });
    this.auth.forget(apiKey.hash);
    return toAccountApiKey(apiKey);
  }
}

export function toAccountApiKey(apiKey: ApiKey): AccountApiKey {
  return {
    id: apiKey.id,
    name: apiKey.name,
    prefix: apiKey.prefix,
    scope: apiKey.scope as ApiKeyScope,
    createdAt: apiKey.createdAt.toISOString(),
    lastUsedAt: apiKey.lastUsedAt?.toISOString() ?? null,
    expiresAt: apiKey.expiresAt?.toISOString() ?? null,
    revokedAt: apiKey.revokedAt?.toISOString() ?? null,
  };
}
