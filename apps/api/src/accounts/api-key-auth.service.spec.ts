import type { Account } from "@imagehub/db";
import { describe, expect, it, vi } from "vitest";
import type { AppConfig } from "../common/config.js";
import type { FailureDelayRepository } from "../common/failure-delay.repository.js";
import type { AccountsRepository, ApiKeyWithAccount } from "./accounts.repository.js";
import { ApiKeyAuthService } from "./api-key-auth.service.js";

function storedKey(): ApiKeyWithAccount {
  return {
    id: "key-1",
    accountId: "account-1",
    name: "default",
    prefix: "ih_abc",
    hash: "",
    createdAt: new Date(0),
    lastUsedAt: null,
    revokedAt: null,
    scope: "full",
    expiresAt: null,
    account: { id: "account-1", limits: {}, disabledAt: null } as Account,
  };
}

/** The service over a repository whose key lookups answer when the test says. */
function authWithPendingLookups() {
  const answers: ((found: ApiKeyWithAccount | null) => void)[] = [];
  const accounts = {
    findApiKeyByHash: vi.fn(() => new Promise<ApiKeyWithAccount | null>((resolve) => answers.push(resolve))),
    touchApiKey: vi.fn(async () => {}),
  };
  const auth = new ApiKeyAuthService(
    accounts as unknown as AccountsRepository,
    { waitOf: async () => 0, recordFailure: async () => 0 } as unknown as FailureDelayRepository,
    { apiKeyCacheSeconds: 5, apiKeyFreeFailures: 20 } as AppConfig,
  );
  return { auth, accounts, answers };
}

describe("ApiKeyAuthService", () => {
  it("looks a key up once, and records its use once, for the requests that arrive while it is looked up", async () => {
    const { auth, accounts, answers } = authWithPendingLookups();
    const callers = Promise.all(Array.from({ length: 10 }, () => auth.authenticate("ih_abc123", null)));
    for (const answer of answers) answer(storedKey());

    expect((await callers).map((caller) => caller.apiKey.id)).toEqual(Array(10).fill("key-1"));
    expect(accounts.findApiKeyByHash).toHaveBeenCalledTimes(1);
    expect(accounts.touchApiKey).toHaveBeenCalledTimes(1);
  });

  it("looks an unknown key up again for the next request", async () => {
    const { auth, accounts, answers } = authWithPendingLookups();
    const first = auth.authenticate("ih_unknown", null);
    answers[0]?.(null);
    await expect(first).rejects.toThrow("api-key is not valid");
    const second = auth.authenticate("ih_unknown", null);
    answers[1]?.(storedKey());

    expect((await second).apiKey.id).toBe("key-1");
    expect(accounts.findApiKeyByHash).toHaveBeenCalledTimes(2);
  });
});
