import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type JsonBody, readJson } from "../../../tests/support/json.js";
import { EVERY_LIVE_PARAM } from "../../../tests/support/live-vocabulary.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";

/** What clients written for the live service send and expect, beyond the spec's tables. */
describe("clients of the live service", () => {
  let api: TestApi;
  let apiKey: string;
  beforeAll(async () => {
    api = await startTestApi({ env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" } });
    ({ apiKey } = await api.createAccount({ credits: { f_images: 10, f_images_print: 20 } }));
  });
  afterAll(() => api.close());

  /** As those clients call: the JSON content type on every request, with or without a body. */
  const call = (method: string, path: string, body?: string) =>
    api.request(path, {
      apiKey,
      method,
      headers: { "content-type": "application/json" },
      ...(body !== undefined && { body }),
    });
  const create = async (params: unknown[], extra: object = {}) => {
    const response = await call(
      "POST",
      "/v1/image-generations",
      JSON.stringify({ name: "Fox", prompt: "a red fox", mode: "simple", params, ...extra }),
    );
    expect(response.status, JSON.stringify(await response.clone().json())).toBe(201);
    return readJson(response);
  };
  const finished = async (id: string): Promise<JsonBody> => {
    let generation: JsonBody;
    await until(
      async () => {
        generation = await readJson(await call("GET", `/v1/image-generations/${id}`));
        return [3, 4].includes(generation.status);
      },
      { what: `generation ${id} to finish` },
    );
    return generation;
  };

  it("reads a JSON content type with an empty body as no body, on every route", async () => {
    const refused = await create([], { prompt: "gore" });
    await finished(refused.id);
    const subscribed = await readJson(
      await call("POST", "/v1/api-keys/webhook/subscribe", JSON.stringify({ url: "http://127.0.0.1:9/h" })),
    );
    const answers = {
      check: await call("GET", "/v1/api-keys/check"),
      search: await call("POST", "/v1/images/search", ""),
      downloaded: await call("POST", "/v1/images/downladed", ""),
      retry: await call("POST", `/v1/image-generations/retry/${refused.id}`, ""),
      test: await call("POST", `/v1/api-keys/webhook/${subscribed.webhookId}/test`, ""),
      enable: await call("POST", `/v1/api-keys/webhook/${subscribed.webhookId}/enable`, ""),
      unsubscribe: await call("DELETE", `/v1/api-keys/webhook/unsubscribe/${subscribed.webhookId}`, ""),
    };
    expect(
      Object.fromEntries(Object.entries(answers).map(([name, answer]) => [name, answer.status])),
    ).toEqual({
      check: 200,
      search: 200,
      downloaded: 200,
      retry: 200,
      test: 202,
      enable: 200,
      unsubscribe: 200,
    });
  });

  it("asks for printIds, not for a body, when a delete comes without one", async () => {
    const response = await call("DELETE", "/v1/image-generations", "");
    expect(await readJson(response)).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: ["printIds: is required"],
    });
  });

  it("stores and answers the spec table's Time in the live spelling, time", async () => {
    const created = await create([{ name: "Time", value: "night" }]);
    expect(created.params).toEqual([{ name: "time", value: "night" }]);
    const listed = await readJson(await call("GET", "/v1/image-generations?limit=100"));
    const inList = listed.prints.find((print: JsonBody) => print.id === created.id);
    expect(inList.params).toEqual([{ name: "time", value: "night" }]);
    const stored = await api.resources.database.prisma.generation.findUniqueOrThrow({
      where: { id: created.id },
    });
    expect(stored.params).toEqual([{ name: "time", value: "night" }]);
  });

  it("answers a generation stored with an earlier spelling in the live one", async () => {
    const created = await create([{ name: "time", value: "night" }]);
    await api.resources.database.prisma.generation.update({
      where: { id: created.id },
      data: { params: [{ name: "Time", value: "night" }] },
    });
    const got = await readJson(await call("GET", `/v1/image-generations/${created.id}`));
    expect(got.params).toEqual([{ name: "time", value: "night" }]);
  });

  it("runs a generation with every parameter name the live service knows, values as text", async () => {
    const params = EVERY_LIVE_PARAM;
    const created = await create(params);
    expect(created.params).toEqual(params);
    expect((await finished(created.id)).status).toBe(3);
  });

  it("lists every accepted spelling when a parameter name is unknown", async () => {
    const response = await call(
      "POST",
      "/v1/image-generations",
      JSON.stringify({
        name: "Fox",
        prompt: "a fox",
        mode: "simple",
        params: [{ name: "hour", value: "1" }],
      }),
    );
    expect((await readJson(response)).message).toEqual([
      'params.0.name: unknown parameter "hour"; known: sujetMode, templatePrompt, angle, photographe, time (or Time), weather, format, camera, interdiction, version, chaos, stylize, fromImageUrl, engine',
    ]);
  });

  it("deletes the generations it knows and answers 200 naming what was deleted and what was not found", async () => {
    const mine = await create([]);
    const unknown = "0190b7a4-0000-7000-8000-000000000000";
    const response = await call(
      "DELETE",
      "/v1/image-generations",
      JSON.stringify({ printIds: [mine.id, unknown, "not-an-id"] }),
    );
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({ deleted: [mine.id], notFound: [unknown, "not-an-id"] });
    expect((await call("GET", `/v1/image-generations/${mine.id}`)).status).toBe(404);
  });
});
