import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { AccountsService } from "../src/accounts/accounts.service.js";

const KEY_CACHE_SECONDS = 1;

describe("GET /v1/api-keys/check", () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({ env: { API_KEY_CACHE_SECONDS: String(KEY_CACHE_SECONDS) } });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(() => api.close());

  it("answers with the key's account, its id and prefix, never the key", async () => {
    const { apiKey, apiKeyId } = await api.createAccount({ email: "ada@example.test", name: "Ada" });
    const response = await api.request("/v1/api-keys/check", { apiKey });
    expect(response.status).toBe(200);
    const body = await readJson(response);
    expect(body).toEqual({
      email: "ada@example.test",
      name: "Ada",
      apiKeyId,
      apiKeyPrefix: apiKey.slice(0, 9),
    });
    expect(JSON.stringify(body)).not.toContain(apiKey);
  });

  it("omits name for an account without one", async () => {
    const { apiKey } = await api.createAccount({ email: "noname@example.test", name: undefined });
    expect(await readJson(await api.request("/v1/api-keys/check", { apiKey }))).not.toHaveProperty("name");
  });

  it.each([
    ["no header", {}, "api-key header is missing"],
    ["an unknown key", { "api-key": "ih_not-a-real-key" }, "api-key is not valid"],
  ])("answers 401 in the error body for %s", async (_, headers, message) => {
    const response = await api.request("/v1/api-keys/check", { headers });
    expect(response.status).toBe(401);
    expect(await readJson(response)).toEqual({ statusCode: 401, error: "Unauthorized", message: [message] });
  });

  it("accepts only the api-key header, as the live service does", async () => {
    const { apiKey } = await api.createAccount();
    for (const request of [
      api.request("/v1/api-keys/check", { headers: { authorization: `Bearer ${apiKey}` } }),
      api.request("/v1/api-keys/check", { headers: { "x-api-key": apiKey } }),
      api.request(`/v1/api-keys/check?api-key=${apiKey}`),
    ]) {
      expect((await request).status).toBe(401);
    }
  });

  it("answers 401 once the key is revoked and its lookup has expired (API_KEY_CACHE_SECONDS)", async () => {
    // Lookups age by the test's clock (performance.now()), which moves only when told.
    vi.useFakeTimers({ toFake: ["performance"] });
    vi.advanceTimersByTime(60_000);
    const { apiKey, apiKeyId } = await api.createAccount({ email: "revoked@example.test" });
    expect((await api.request("/v1/api-keys/check", { apiKey })).status).toBe(200);
    await api.app
      .get(AccountsService)
      .revokeApiKey({ email: "revoked@example.test", apiKeyId, actor: "test" });
    // The lookup made a moment ago is reused: the documented delay of a revocation.
    expect((await api.request("/v1/api-keys/check", { apiKey })).status).toBe(200);
    vi.advanceTimersByTime(KEY_CACHE_SECONDS * 1000 + 100);
    const response = await api.request("/v1/api-keys/check", { apiKey });
    expect(response.status).toBe(401);
    expect((await readJson(response)).message).toEqual(["api-key has been revoked"]);
  });

  it("stores only the key's sha256 and records when it was last used", async () => {
    const { apiKey, apiKeyId } = await api.createAccount();
    await api.request("/v1/api-keys/check", { apiKey });
    const stored = await api.resources.database.prisma.apiKey.findUniqueOrThrow({ where: { id: apiKeyId } });
    expect(stored.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.lastUsedAt).toBeInstanceOf(Date);
    const everything = await api.resources.database.prisma.$queryRaw<{ dump: string }[]>`
      SELECT (SELECT json_agg(k)::text FROM api_keys k) || (SELECT json_agg(a)::text FROM audit_log a) AS dump`;
    expect(everything[0]?.dump).not.toContain(apiKey.slice(9));
  });

  it("makes keys with a recognisable prefix and 32 random bytes", async () => {
    const { apiKey } = await api.createAccount();
    expect(apiKey).toMatch(/^ih_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(apiKey.slice(3), "base64url")).toHaveLength(32);
  });
});

describe("logs", () => {
  it("never contain an API key, even at trace level and for failed requests", async () => {
    const lines: string[] = [];
    const api = await startTestApi({
      env: { LOG_LEVEL: "trace" },
      logDestination: { write: (line: string) => void lines.push(line) },
    });
    try {
      const { apiKey } = await api.createAccount();
      await api.request("/v1/api-keys/check", { apiKey });
      await api.request("/v1/credit", { apiKey: `${apiKey}x` });
      await api.request("/v1/nothing", { apiKey });
      expect(lines.some((line) => line.includes('"reqId"'))).toBe(true);
      expect(lines.join("\n")).not.toContain(apiKey.slice(3));
    } finally {
      await api.close();
    }
  });
});
