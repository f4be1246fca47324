import { PassThrough } from "node:stream";
import { accountOperations } from "@imagehub/domain";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { hashPassword } from "../src/account-area/passwords.js";
import { AccountsRepository } from "../src/accounts/accounts.repository.js";

const PASSWORD = "correct horse battery";

/** A signed-in session of a new account with a password: its cookie and CSRF token. */
async function signedIn(api: TestApi, overrides: { isAdmin?: boolean } = {}) {
  const account = await api.createAccount();
  const { email } = await api.resources.database.prisma.account.update({
    where: { id: account.accountId },
    data: { passwordHash: await hashPassword(PASSWORD), isAdmin: overrides.isAdmin ?? false },
  });
  const response = await signIn(api, email, PASSWORD);
  expect(response.status).toBe(200);
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] as string;
  const { csrfToken } = await readJson(response);
  const send = (
    path: string,
    init: { method?: string; json?: unknown; headers?: Record<string, string> } = {},
  ) => api.request(path, { ...init, headers: { cookie, "x-csrf-token": csrfToken, ...init.headers } });
  return { ...account, email, cookie, csrfToken, send };
}

function signIn(api: TestApi, email: string, password: string, address?: string): Promise<Response> {
  return api.request("/account/sign-in", {
    method: "POST",
    json: { email, password },
    ...(address && { headers: { "x-forwarded-for": address } }),
  });
}

/** Every session route with its path's parameters filled in. */
const SESSION_ROUTES = Object.values(accountOperations)
  .filter((operation) => operation.auth === "session" || operation.auth === "admin")
  .map((operation) => ({
    method: operation.method,
    path: operation.path.replace(/\{[^}]+\}/g, "00000000-0000-7000-8000-000000000000"),
  }));

describe("a malformed session cookie", () => {
  let api: TestApi;
  const lines: string[] = [];

  beforeAll(async () => {
    const logged = new PassThrough();
    logged.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
    api = await startTestApi({ env: { LOG_LEVEL: "info" }, logDestination: logged });
  });
  afterAll(() => api.close());

  it.each(["%", "%E0%A4%A", "%ZZ"])(
    "is ignored on every session route: 401 sign in first, no error logged (%s)",
    async (value) => {
      expect(SESSION_ROUTES.length).toBeGreaterThan(20);
      for (const { method, path } of SESSION_ROUTES) {
        const response = await api.request(path, {
          method,
          headers: { cookie: `imagehub_session=${value}`, "content-type": "application/json" },
          ...(method !== "GET" && method !== "DELETE" && { body: "{}" }),
        });
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(await readJson(response)).toEqual({
          statusCode: 401,
          error: "Unauthorized",
          message: ["sign in first"],
        });
      }
      const errors = lines.map((line) => JSON.parse(line)).filter((entry) => entry.level >= 50);
      expect(errors).toEqual([]);
    },
  );
});

describe("unknown API keys", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ env: { API_KEY_FREE_FAILURES: "5", TRUST_PROXY: "true" } });
  });
  afterAll(() => api.close());

  const check = (apiKey: string, address: string) =>
    api.request("/v1/api-keys/check", { apiKey, headers: { "x-forwarded-for": address } });

  it("make their address wait, without a database lookup per guess once it must", async () => {
    const lookups = vi.spyOn(api.app.get(AccountsRepository), "findApiKeyByHash");
    const statuses: number[] = [];
    for (let guess = 0; guess < 40; guess++) {
      statuses.push((await check(`ih_guess-${guess}`, "203.0.113.7")).status);
    }
    // The fifth failure makes the next attempt wait a second, the next failure two, and so on.
    expect(statuses.slice(0, 6)).toEqual([401, 401, 401, 401, 401, 429]);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(20);
    // A waiting guess costs no lookup: only the guesses answered 401 were looked up.
    expect(lookups).toHaveBeenCalledTimes(statuses.filter((status) => status === 401).length);
    lookups.mockRestore();

    const refused = await check("ih_one-more", "203.0.113.7");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await readJson(refused)).message[0]).toMatch(
      /^too many invalid API keys from this address; try again in \d+ s$/,
    );
  });

  it("leave other addresses alone", async () => {
    const { apiKey } = await api.createAccount();
    for (let guess = 0; guess < 10; guess++) await check(`ih_guess-${guess}`, "198.51.100.1");
    expect((await check(apiKey, "198.51.100.2")).status).toBe(200);
    expect((await check("ih_wrong", "198.51.100.2")).status).toBe(401);
  });
});

describe("API keys made in the web area", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ env: { API_KEYS_PER_ACCOUNT: "3", RATE_LIMIT_API_KEY_CREATE: "6" } });
  });
  afterAll(() => api.close());

  it("are capped per account: 409 once it has the most it may have, until one is revoked", async () => {
    const owner = await signedIn(api);
    // The account starts with one key.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(
        (await owner.send("/account/api-keys", { method: "POST", json: { name: `k${i}` } })).status,
      );
    }
    expect(statuses).toEqual([201, 201, 409, 409]);
    const refused = await owner.send("/account/api-keys", { method: "POST", json: { name: "more" } });
    expect((await readJson(refused)).message).toEqual([
      "this account has 3 API keys, the most it may have: revoke one first",
    ]);
    expect(await api.resources.database.prisma.apiKey.count({ where: { accountId: owner.accountId } })).toBe(
      3,
    );
    const revoked = await owner.send(`/account/api-keys/${owner.apiKeyId}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect((await owner.send("/account/api-keys", { method: "POST", json: { name: "again" } })).status).toBe(
      201,
    );
  });

  it("count against a budget of their own: revoking keys between creates buys no more", async () => {
    const owner = await signedIn(api);
    const create = () => owner.send("/account/api-keys", { method: "POST", json: { name: "churn" } });
    for (let i = 0; i < 6; i++) {
      const created = await create();
      expect(created.status).toBe(201);
      const { apiKey } = await readJson(created);
      expect((await owner.send(`/account/api-keys/${apiKey.id}`, { method: "DELETE" })).status).toBe(200);
    }
    const refused = await create();
    expect(refused.status).toBe(429);
    expect((await readJson(refused)).message[0]).toContain("6 API key creations per 60 s for this account");
  });

  it("are answered with Cache-Control: no-store, as is the session's CSRF token", async () => {
    const owner = await signedIn(api);
    const created = await owner.send("/account/api-keys", { method: "POST", json: { name: "fresh" } });
    expect(created.headers.get("cache-control")).toBe("no-store");
    expect((await owner.send("/account/session")).headers.get("cache-control")).toBe("no-store");
  });
});

describe("idempotent replays of answers that carry a secret", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" } });
  });
  afterAll(() => api.close());

  /** Everything the idempotency store holds, as text. */
  const stored = async () =>
    JSON.stringify(
      await api.resources.database.prisma.idempotencyKey.findMany({ select: { response: true } }),
    );

  it("refuse a new API key's replay with 409 naming the key, and keep no key at rest", async () => {
    const owner = await signedIn(api);
    const create = () =>
      owner.send("/account/api-keys", {
        method: "POST",
        json: { name: "ci" },
        headers: { "idempotency-key": "new-key-1" },
      });
    const first = await create();
    expect(first.status).toBe(201);
    const { apiKey, key } = await readJson(first);
    const replay = await create();
    expect(replay.status).toBe(409);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const refusal = await readJson(replay);
    expect(refusal.message).toEqual([
      `the first request with this Idempotency-Key succeeded, but its answer held a secret that is shown only once and not kept: look up API key ${apiKey.id} instead (if its secret was lost, replace it)`,
    ]);
    expect(JSON.stringify(refusal)).not.toContain(key);
    expect(await stored()).not.toContain(key);
    expect(await stored()).not.toContain(key.slice(9));
    expect(await api.resources.database.prisma.apiKey.count({ where: { accountId: owner.accountId } })).toBe(
      2,
    );
  });

  it("refuse a webhook subscription's replay with 409 naming the webhook, and keep no whsec_ secret", async () => {
    const { apiKey, accountId } = await api.createAccount();
    const subscribe = () =>
      api.request("/v1/api-keys/webhook/subscribe", {
        apiKey,
        method: "POST",
        json: { url: "http://127.0.0.1:9/hooks" },
        headers: { "idempotency-key": "subscribe-1" },
      });
    const first = await subscribe();
    expect(first.status).toBe(201);
    const { webhookId, secret } = await readJson(first);
    const replay = await subscribe();
    expect(replay.status).toBe(409);
    expect((await readJson(replay)).message[0]).toContain(`look up webhook ${webhookId} instead`);
    expect(await stored()).not.toContain(secret);
    expect(await stored()).not.toContain("whsec_");
    expect(await api.resources.database.prisma.webhook.count({ where: { accountId } })).toBe(1);
  });

  it("refuse an invitation's replay with 409 naming the account, and keep no set-password link", async () => {
    const admin = await signedIn(api, { isAdmin: true });
    const invite = () =>
      admin.send("/account/admin/invitations", {
        method: "POST",
        json: { email: "replayed@example.test" },
        headers: { "idempotency-key": "invite-1" },
      });
    const first = await invite();
    expect(first.status).toBe(201);
    const { link } = await readJson(first);
    const replay = await invite();
    expect(replay.status).toBe(409);
    expect((await readJson(replay)).message[0]).toContain(
      "look up the account replayed@example.test instead",
    );
    expect(await stored()).not.toContain(new URL(link).hash.slice(1));
  });

  it("still replay answers without a secret as they were", async () => {
    const { apiKey } = await api.createAccount();
    const subscribed = await readJson(
      await api.request("/v1/api-keys/webhook/subscribe", {
        apiKey,
        method: "POST",
        json: { url: "http://127.0.0.1:9/hooks" },
      }),
    );
    const test = () =>
      api.request(`/v1/api-keys/webhook/${subscribed.webhookId}/test`, {
        apiKey,
        method: "POST",
        headers: { "idempotency-key": "test-1" },
      });
    const first = await test();
    const replay = await test();
    expect(replay.status).toBe(first.status);
    expect(await readJson(replay)).toEqual(await readJson(first));
  });
});

describe("invitations", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it("refuse an existing account (409), issuing no link, whoever it is", async () => {
    const admin = await signedIn(api, { isAdmin: true });
    const other = await signedIn(api, { isAdmin: true });
    for (const email of [other.email, admin.email]) {
      const refused = await admin.send("/account/admin/invitations", { method: "POST", json: { email } });
      expect(refused.status).toBe(409);
      expect(await readJson(refused)).toEqual({
        statusCode: 409,
        error: "Conflict",
        message: [`an account with email ${email} exists already: only new accounts are invited`],
      });
    }
    expect(await api.resources.database.prisma.signInLink.count()).toBe(0);
    // The other admin's session goes on.
    expect((await other.send("/account/session")).status).toBe(200);
  });
});

describe("signing in", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({
      env: { TRUST_PROXY: "true", SIGN_IN_FREE_FAILURES: "3", SIGN_IN_ATTEMPTS_PER_MINUTE: "1000" },
    });
  });
  afterAll(() => api.close());

  it("answers an unknown email as it answers an existing one, failure after failure", async () => {
    const owner = await signedIn(api);
    const answers = async (email: string, address: string) => {
      const seen: { status: number; body: unknown }[] = [];
      for (let attempt = 0; attempt < 5; attempt++) {
        const response = await signIn(api, email, "wrong password", address);
        const body = await readJson(response);
        seen.push({ status: response.status, body: { ...body, message: body.message.map(withoutSeconds) } });
      }
      return seen;
    };
    const existing = await answers(owner.email, "192.0.2.10");
    const unknown = await answers("nobody@example.test", "192.0.2.11");
    expect(existing.map((answer) => answer.status)).toEqual([401, 401, 401, 429, 429]);
    expect(unknown).toEqual(existing);
  });

  it("slows a guesser down without locking the owner out: the right password works from elsewhere", async () => {
    const owner = await signedIn(api);
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await signIn(api, owner.email, "guess", "192.0.2.20")).status).toBe(401);
    }
    const waiting = await signIn(api, owner.email, PASSWORD, "192.0.2.20");
    expect(waiting.status).toBe(429);
    expect(Number(waiting.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await readJson(waiting)).message[0]).toMatch(
      /^too many failed sign-ins for this email; try again in \d+ s$/,
    );
    expect((await signIn(api, owner.email, PASSWORD, "192.0.2.21")).status).toBe(200);
  });
});

function withoutSeconds(message: string): string {
  return message.replace(/\d+ s$/, "N s");
}
