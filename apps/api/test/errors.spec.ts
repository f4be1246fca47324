import { defineOperation } from "@imagehub/domain";
import { Body, Controller, Module } from "@nestjs/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { Endpoint } from "../src/common/endpoint.decorator.js";

/** Probe routes mounted beside the real ones, to exercise validation and unexpected failures. */
const probeOperation = defineOperation({
  operationId: "probe",
  method: "POST",
  path: "/probe/{kind}",
  tag: "Probe",
  summary: "probe",
  auth: "required",
  params: z.object({ kind: z.enum(["echo", "crash"]) }),
  query: z.object({ page: z.coerce.number().int().min(1).optional() }),
  body: z.strictObject({
    limit: z.number().int().max(100),
    nested: z.object({ name: z.string().min(2) }).optional(),
  }),
  success: { status: 200, description: "echo", schema: z.object({ limit: z.number() }) },
});

@Controller()
class ProbeController {
  @Endpoint(probeOperation)
  probe(@Body() body: { limit: number }): { limit: number } {
    if (body.limit === 13) throw new Error("secret internal detail");
    return { limit: body.limit };
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe("error responses", () => {
  let api: TestApi;
  let apiKey: string;

  beforeAll(async () => {
    api = await startTestApi({ env: { BODY_LIMIT_BYTES: "2048" }, extraModules: [ProbeModule] });
    ({ apiKey } = await api.createAccount());
  });
  afterAll(() => api.close());

  it("answers an unknown route with 404 in the error body", async () => {
    const response = await api.request("/v1/nothing-here", { apiKey });
    expect(response.status).toBe(404);
    expect(await readJson(response)).toEqual({
      statusCode: 404,
      error: "Not Found",
      message: ["Cannot GET /v1/nothing-here"],
    });
  });

  it("answers malformed JSON with 400", async () => {
    const response = await api.request("/probe/echo", {
      apiKey,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"limit": ',
    });
    expect(response.status).toBe(400);
    const body = await readJson(response);
    expect(body.statusCode).toBe(400);
    expect(body.error).toBe("Bad Request");
    expect(body.message[0]).toMatch(/JSON/);
  });

  it("answers a body over the limit with 413", async () => {
    const response = await api.request("/probe/echo", {
      apiKey,
      method: "POST",
      json: { limit: 1, pad: "x".repeat(4096) },
    });
    expect(response.status).toBe(413);
    expect(await readJson(response)).toMatchObject({ statusCode: 413, error: "Payload Too Large" });
  });

  it("names every offending field of params, query and body", async () => {
    const response = await api.request("/probe/explode?page=0", {
      apiKey,
      method: "POST",
      json: { limit: 1000, nested: { name: "x" }, extra: true },
    });
    expect(response.status).toBe(400);
    const { message } = await readJson(response);
    expect(message).toEqual([
      expect.stringMatching(/^kind: /),
      expect.stringMatching(/^page: .*>=1/),
      expect.stringMatching(/^limit: .*<=100/),
      expect.stringMatching(/^nested\.name: .*>=2/),
      "unknown field extra",
    ]);
  });

  it("checks the key before validating the request", async () => {
    const response = await api.request("/probe/explode", { method: "POST", json: {} });
    expect(response.status).toBe(401);
  });

  it("answers an unexpected failure with 500 and no detail", async () => {
    const response = await api.request("/probe/echo", { apiKey, method: "POST", json: { limit: 13 } });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      statusCode: 500,
      error: "Internal Server Error",
      message: ["Internal server error"],
    });
    expect(text).not.toContain("secret internal detail");
  });

  it("echoes a request id on every response", async () => {
    const response = await api.request("/v1/api-keys/check", {
      apiKey,
      headers: { "x-request-id": "trace-123" },
    });
    expect(response.headers.get("x-request-id")).toBe("trace-123");
    expect((await api.request("/v1/api-keys/check", { apiKey })).headers.get("x-request-id")).toMatch(
      /^[0-9a-f-]{36}$/,
    );
  });

  it("answers 500 in the error body when the database is gone", async () => {
    const broken = await startTestApi();
    const { apiKey: key } = await broken.createAccount();
    await broken.resources.database.close();
    const response = await broken.request("/v1/api-keys/check", { apiKey: key });
    expect(response.status).toBe(500);
    expect(await readJson(response)).toEqual({
      statusCode: 500,
      error: "Internal Server Error",
      message: ["Internal server error"],
    });
    await broken.app.close();
    broken.resources.redis.disconnect();
    await broken.database.drop();
  });
});
