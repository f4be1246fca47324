import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type JsonBody, readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";

const NUL = "\u0000";
const LONE_SURROGATE = "\ud800";

/** A body, its text written by hand: JSON.stringify would not keep a lone surrogate's escape apart. */
function jsonText(value: unknown): string {
  return JSON.stringify(value).replaceAll("\ufffd", "\\ud800");
}

/** Input that once ended in 500: each is refused with a 400 in the error body, and nothing is written. */
describe("bad input", () => {
  let api: TestApi;
  let apiKey: string;
  let accountId: string;
  beforeAll(async () => {
    api = await startTestApi({ env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" } });
    ({ apiKey, accountId } = await api.createAccount());
  });
  afterAll(() => api.close());

  const send = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
    api.request(path, {
      apiKey,
      method,
      headers: { "content-type": "application/json", ...headers },
      ...(body !== undefined && { body }),
    });
  const generation = { name: "Fox", prompt: "a red fox", mode: "simple" };
  const written = async () => ({
    generations: await api.resources.database.prisma.generation.count({ where: { accountId } }),
    webhooks: await api.resources.database.prisma.webhook.count({ where: { accountId } }),
  });
  const expectRefused = async (response: Response, status = 400, what = ""): Promise<JsonBody> => {
    const body = await readJson(response);
    expect(
      { status: response.status, error: body.error, messages: Array.isArray(body.message) },
      `${what} ${JSON.stringify(body)}`,
    ).toEqual({ status, error: status === 400 ? "Bad Request" : expect.any(String), messages: true });
    expect(Object.keys(body).sort()).toEqual(["error", "message", "statusCode"]);
    return body;
  };

  it.each([NUL, LONE_SURROGATE])("refuses %j in every string of a request, writing nothing", async (bad) => {
    const text = `a${bad}b`;
    const bodies: [string, string, unknown][] = [
      ["POST", "/v1/images/search", { search: text }],
      ["POST", "/v1/image-generations", { ...generation, name: text }],
      ["POST", "/v1/image-generations", { ...generation, prompt: text }],
      ["POST", "/v1/image-generations", { ...generation, additionalPrompt: text }],
      ["POST", "/v1/image-generations", { ...generation, tags: [text] }],
      ["POST", "/v1/image-generations", { ...generation, metaData: { note: text } }],
      ["POST", "/v1/image-generations", { ...generation, metaData: { [text]: 1 } }],
      ["POST", "/v1/image-generations", { ...generation, params: [{ name: "camera", value: text }] }],
      ["POST", "/v1/api-keys/webhook/subscribe", { url: `http://127.0.0.1:9/${text}` }],
    ];
    for (const [method, path, body] of bodies) {
      const refusal = await expectRefused(await send(method, path, jsonText(body)), 400, path);
      expect(refusal.message.join(" "), `${path} ${JSON.stringify(body)}`).toMatch(
        /NUL characters or unpaired surrogates/,
      );
    }
    for (const query of ["name=a%00b", "tag=%00"]) {
      await expectRefused(await send("GET", `/v1/image-generations?${query}`), 400, query);
    }
    await expectRefused(await send("GET", "/v1/image-generations/a%00b"));
    expect(await written()).toEqual({ generations: 0, webhooks: 0 });
  });

  it.each(["__proto__", "constructor", "toString", "valueOf", "hasOwnProperty"])(
    "refuses a parameter named %s as unknown",
    async (name) => {
      const response = await send(
        "POST",
        "/v1/image-generations",
        JSON.stringify({ ...generation, params: [{ name, value: "1" }] }),
      );
      const refusal = await expectRefused(response);
      expect(refusal.message[0]).toMatch(new RegExp(`^params.0.name: unknown parameter "${name}"`));
    },
  );

  it("bounds metaData to 16 levels and 16 KB", async () => {
    const deep = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
    const tooDeep = await expectRefused(
      await send(
        "POST",
        "/v1/image-generations",
        `{"name":"Fox","prompt":"a red fox","mode":"simple","metaData":${deep}}`,
      ),
    );
    expect(tooDeep.message).toEqual(["metaData: must not be nested more than 16 levels deep"]);
    const tooLarge = await expectRefused(
      await send(
        "POST",
        "/v1/image-generations",
        JSON.stringify({ ...generation, metaData: { note: "x".repeat(17_000) } }),
      ),
    );
    expect(tooLarge.message).toEqual(["metaData: must be at most 16384 bytes as JSON"]);
    let sixteen: unknown = 1;
    for (let level = 0; level < 16; level += 1) sixteen = { a: sixteen };
    const accepted = await send(
      "POST",
      "/v1/image-generations",
      JSON.stringify({ ...generation, metaData: sixteen }),
    );
    expect(accepted.status).toBe(201);
    await api.resources.database.prisma.generation.deleteMany({ where: { accountId } });
  });

  it.each([
    "0000-01-01T00:00:00Z",
    "0001-01-01T00:30:00+01:00",
    "+275760-09-13T00:00:00Z",
    "99999-01-01T00:00:00Z",
  ])("refuses the date %s outside what the downloaded list can hold", async (date) => {
    const response = await send("POST", "/v1/images/downladed", JSON.stringify({ afterCreatedAt: date }));
    const refusal = await expectRefused(response);
    expect(refusal.message[0]).toMatch(/^afterCreatedAt: /);
  });

  it.each([
    ["GET", "/v1/images/preview/%zz.jpg"],
    ["GET", "/v1/image-generations/%E0%A4%A"],
    ["GET", "/v1/nothing/%zz"],
  ])("answers the malformed URL %s %s in the error body", async (method, path) => {
    const response = await send(method, path);
    expect(response.status).toBeLessThan(500);
    await expectRefused(response, response.status);
  });

  it("answers an unsupported content type with 415 in the error body", async () => {
    const response = await send("POST", "/v1/images/search", "<fox/>", { "content-type": "application/xml" });
    await expectRefused(response, 415);
  });

  it("caps the messages of a long advanced prompt and says the rest once", async () => {
    const prompt = `a fox ${Array.from({ length: 600 }, (_, index) => `--x${index}`).join(" ")}`;
    const response = await send(
      "POST",
      "/v1/image-generations",
      JSON.stringify({ ...generation, mode: "advanced", prompt }),
    );
    const text = await response.clone().text();
    const refusal = await expectRefused(response);
    expect(text.length).toBeLessThan(4096);
    expect(refusal.message).toHaveLength(21);
    expect(refusal.message.at(-1)).toBe("580 more problems not listed");
    expect(refusal.message.filter((line: string) => line.includes("known: --ar"))).toHaveLength(1);
  });

  it("matches % and _ in a name filter as themselves", async () => {
    for (const name of ["100% fox", "fox_cub", "plain fox"]) {
      expect(
        (await send("POST", "/v1/image-generations", JSON.stringify({ ...generation, name }))).status,
      ).toBe(201);
    }
    const names = async (filter: string) =>
      (
        await readJson(await send("GET", `/v1/image-generations?name=${encodeURIComponent(filter)}`))
      ).prints.map((print: JsonBody) => print.name);
    expect(await names("%")).toEqual(["100% fox"]);
    expect(await names("_")).toEqual(["fox_cub"]);
    expect(await names("\\")).toEqual([]);
  });
});
