import type { Account, ApiKey } from "@imagehub/db";
import type { ApiKeyCheck } from "@imagehub/domain";
import { Injectable, UnauthorizedException } from "@nestjs/common";
import { AccountsRepository } from "./accounts.repository.js";
import { hashApiKey } from "./api-key.js";

export interface Caller {
  account: Account;
  apiKey: ApiKey;
}

/** lastUsedAt is a hint for people reviewing their keys; a minute's precision spares a write per request. */
const LAST_USED_PRECISION_MS = 60_000;

@Injectable()
export class ApiKeyAuthService {
  constructor(private readonly accounts: AccountsRepository) {}

  async authenticate(key: string | undefined): Promise<Caller> {
    if (!key) throw new UnauthorizedException("api-key header is missing");
    const apiKey = await this.accounts.findApiKeyByHash(hashApiKey(key));
    if (!apiKey) throw new UnauthorizedException("api-key is not valid");
    if (apiKey.revokedAt) throw new UnauthorizedException("api-key has been revoked");
    const now = new Date();
    if (!apiKey.lastUsedAt || now.getTime() - apiKey.lastUsedAt.getTime() > LAST_USED_PRECISION_MS) {
      await this.accounts.touchApiKey(apiKey.id, now);
    }
    const { account, ...withoutAccount } = apiKey;
    return { account, apiKey: withoutAccount };
  }

  describe({ account, apiKey }: Caller): ApiKeyCheck {
    return {
      email: account.email,
      ...(account.name !== null && { name: account.name }),
      apiKeyId: apiKey.id,
      apiKeyPrefix: apiKey.prefix,
    };
  }
}
