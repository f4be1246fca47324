import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { AccountsService } from "../src/accounts/accounts.service.js";

describe("GET /v1/credit", () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it("lists each bucket with what is left, what the period restores and the unlimited flag", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images: 12, f_images_print: 4 } });
    const response = await api.request("/v1/credit", { apiKey });
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({
      credits: [
        { type: "f_images", credit: 12, creditTotal: 12, unlimited: false },
        { type: "f_images_print", credit: 4, creditTotal: 4, unlimited: false },
      ],
    });
  });

  it("computes the balance from every ledger entry of the bucket", async () => {
    const { apiKey } = await api.createAccount({ email: "ledger@example.test", credits: { f_images: 10 } });
    const accounts = api.app.get(AccountsService);
    await accounts.grantCredits({ email: "ledger@example.test", type: "f_images", amount: 5, actor: "test" });
    await accounts.grantCredits({
      email: "ledger@example.test",
      type: "f_images",
      amount: -3,
      actor: "test",
    });
    const { credits } = await readJson(await api.request("/v1/credit", { apiKey }));
    expect(credits).toEqual([{ type: "f_images", credit: 12, creditTotal: 10, unlimited: false }]);
  });

  it("shows only the caller's own buckets", async () => {
    await api.createAccount({ credits: { f_images: 99 } });
    const { apiKey } = await api.createAccount({ credits: {} });
    expect(await readJson(await api.request("/v1/credit", { apiKey }))).toEqual({ credits: [] });
  });
});
