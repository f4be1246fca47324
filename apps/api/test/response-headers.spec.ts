import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";

/** Sends raw bytes and reads the answer until the server closes the connection. */
function rawRequest(baseUrl: string, request: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString()));
  });
}

describe("response headers", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it("marks JSON answers nosniff, refusals and successes alike", async () => {
    const { apiKey } = await api.createAccount();
    for (const response of [
      await api.request("/v1/credit", { apiKey }),
      await api.request("/v1/credit"),
      await api.request("/health"),
    ]) {
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("answers a webhook's new secret with Cache-Control: no-store", async () => {
    const strict = await startTestApi({ env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" } });
    try {
      const { apiKey } = await strict.createAccount();
      const subscribed = await strict.request("/v1/api-keys/webhook/subscribe", {
        apiKey,
        method: "POST",
        json: { url: "http://127.0.0.1:9/hooks" },
      });
      expect(subscribed.status).toBe(201);
      expect(subscribed.headers.get("cache-control")).toBe("no-store");
    } finally {
      await strict.close();
    }
  });

  it("answers headers too large with 431 in the spec's error body", async () => {
    const answer = await rawRequest(
      api.baseUrl,
      `GET /v1/credit HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head.toLowerCase()).toContain("x-content-type-options: nosniff");
    expect(JSON.parse(body)).toEqual({
      statusCode: 431,
      error: "Request Header Fields Too Large",
      message: ["the request's headers are too large"],
    });
  });

  it("keeps the API reference out of frames, and the key typed into it out of localStorage", async () => {
    const page = await api.request("/doc");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).toContain("persistAuthorization: false");
    expect(html).not.toContain("persistAuthorization: true");
  });

  it("leaves an answer that states its own caching as it is, nosniff added", async () => {
    const response = await api.request("/doc/assets/swagger-ui.css");
    expect(response.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
