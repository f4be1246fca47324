import { describe, expect, it } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { localDeliveryApi } from "../../../tests/support/webhooks-api.js";

describe("webhook subscriptions", () => {
  const { api, hooks } = localDeliveryApi();

  it("subscribes, shows the webhook with its key's id (never the key) and unsubscribes", async () => {
    const { apiKey, apiKeyId } = await api().createAccount();
    const { webhookId, secret } = await hooks.subscribe(apiKey, { url: "http://127.0.0.1:9/hooks" });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const shown = await readJson(await hooks.get(apiKey, webhookId));
    expect(shown).toEqual({
      id: webhookId,
      apiKeyId,
      url: "http://127.0.0.1:9/hooks",
      events: ["print.completed", "print.failed"],
      createdAt: expect.any(String),
      disabled: false,
    });
    expect(JSON.stringify(shown)).not.toContain(apiKey);
    const listed = await readJson(await hooks.send("GET", "/v1/api-keys/webhooks", apiKey));
    expect(listed.webhooks.map((webhook: { id: string }) => webhook.id)).toEqual([webhookId]);

    const removed = await hooks.send("DELETE", `/v1/api-keys/webhook/unsubscribe/${webhookId}`, apiKey);
    expect(removed.status).toBe(200);
    expect(await removed.text()).toBe("");
    expect((await hooks.get(apiKey, webhookId)).status).toBe(404);
  });

  it("answers 404 to another account's key, for reading and for removing", async () => {
    const owner = await api().createAccount();
    const other = await api().createAccount();
    const { webhookId } = await hooks.subscribe(owner.apiKey, { url: "http://127.0.0.1:9/hooks" });
    expect((await hooks.get(other.apiKey, webhookId)).status).toBe(404);
    const removal = await hooks.send("DELETE", `/v1/api-keys/webhook/unsubscribe/${webhookId}`, other.apiKey);
    expect(removal.status).toBe(404);
    expect((await hooks.get(owner.apiKey, webhookId)).status).toBe(200);
    expect((await hooks.get(owner.apiKey, "not-a-uuid")).status).toBe(404);
  });

  it.each([
    [{ url: "not a url" }, /^url: /],
    [{ url: "ftp://example.test/hooks" }, /^url: /],
    [{ url: "https://example.test/hooks", events: ["print.exploded"] }, /^events\.0: /],
    [{ url: "https://example.test/hooks", events: [] }, /^events: /],
    [{ events: ["test"] }, /^url: is required/],
  ])("refuses %j with 400", async (body, message) => {
    const { apiKey } = await api().createAccount();
    const response = await hooks.send("POST", "/v1/api-keys/webhook/subscribe", apiKey, body);
    expect(response.status).toBe(400);
    expect((await readJson(response)).message).toEqual([expect.stringMatching(message)]);
  });

  it("keeps to the number of webhooks an account may have", async () => {
    const { apiKey } = await api().createAccount();
    for (let index = 0; index < api().resources.config.webhooks.maxPerAccount; index += 1) {
      await hooks.subscribe(apiKey, { url: `http://127.0.0.1:9/hooks/${index}` });
    }
    const response = await hooks.send("POST", "/v1/api-keys/webhook/subscribe", apiKey, {
      url: "http://127.0.0.1:9/one-more",
    });
    expect(response.status).toBe(409);
    expect((await readJson(response)).message).toEqual([expect.stringMatching(/at most 10 webhooks/)]);
  });
});
