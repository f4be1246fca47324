import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPLETED_LIFECYCLE } from "../../../tests/support/generation-events.js";
import { jpegSize } from "../../../tests/support/images.js";
import { type JsonBody, readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { client, fox } from "./generations.support.js";

describe("image generations", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(
      process.env.DEBUG_GEN ? { env: { LOG_LEVEL: "debug" }, logDestination: process.stderr } : {},
    );
  });
  afterAll(() => api.close());
  const { prisma, send, create, finished, events, display, credit } = client(() => api);

  it.each([
    [{ prompt: "a fox", mode: "simple" }, "name: is required"],
    [{ name: "a", mode: "simple" }, "prompt: is required"],
    [{ name: "a", prompt: "a fox" }, "mode: is required"],
    [{ ...fox, mode: "expert" }, 'mode: Invalid option: expected one of "simple"|"advanced"'],
    [{ ...fox, name: "x".repeat(201) }, "name: Too big: expected string to have <=200 characters"],
    [{ ...fox, prompt: "x".repeat(4097) }, "prompt: Too big: expected string to have <=4096 characters"],
    [
      { ...fox, additionalPrompt: "x".repeat(1025) },
      "additionalPrompt: Too big: expected string to have <=1024 characters",
    ],
    [
      { ...fox, prompt: "a fox --ar 16:9" },
      "prompt: flags such as --ar are not allowed in simple mode; use params",
    ],
    [
      { ...fox, prompt: "a fox --no trees" },
      "prompt: flags such as --no are not allowed in simple mode; use params",
    ],
    [
      { ...fox, params: [{ name: "colour", value: "red" }] },
      'params.0.name: unknown parameter "colour"; known: sujetMode, templatePrompt, angle, photographe, time (or Time), weather, format, camera, interdiction, version, chaos, stylize, fromImageUrl, engine',
    ],
    [
      {
        ...fox,
        params: [
          { name: "chaos", value: 1 },
          { name: "chaos", value: 2 },
        ],
      },
      'params.1.name: parameter "chaos" is given twice',
    ],
    [
      {
        ...fox,
        params: [
          { name: "Time", value: "sunrise" },
          { name: "time", value: "night" },
        ],
      },
      'params.1.name: parameter "time" is given twice',
    ],
    [
      { ...fox, params: [{ name: "format", value: "21:9" }] },
      'params.0.value: format: Invalid option: expected one of "1:1"|"3:2"|"2:3"|"4:7"|"7:4"|"5:4"|"4:5"|"16:9"|"9:16"',
    ],
    [
      { ...fox, params: [{ name: "weather", value: "hail" }] },
      'params.0.value: weather: Invalid option: expected one of "sunny"|"cloudy"|"foggy"|"rainy"|"thunderstorm"|"snowy"',
    ],
    [
      { ...fox, params: [{ name: "templatePrompt", value: "cartoon" }] },
      'params.0.value: templatePrompt: Invalid option: expected one of "realisticQuality"|"realisticManuel"',
    ],
    [
      { ...fox, params: [{ name: "chaos", value: "101" }] },
      "params.0.value: chaos: Too big: expected number to be <=100",
    ],
    [
      { ...fox, params: [{ name: "stylize", value: 1001 }] },
      "params.0.value: stylize: Too big: expected number to be <=1000",
    ],
    [
      { ...fox, params: [{ name: "camera", value: "x".repeat(101) }] },
      "params.0.value: camera: Too big: expected string to have <=100 characters",
    ],
    [
      { ...fox, mode: "advanced", prompt: "a fox --ar 16:9" },
      "params: not allowed in advanced mode: put flags in the prompt",
    ],
    [
      { name: "a", mode: "advanced", prompt: "a fox", optimizePrompt: true },
      "optimizePrompt: not allowed in advanced mode",
    ],
    [
      { name: "a", mode: "advanced", prompt: "a fox --zoom 2" },
      "prompt: --zoom: unknown flag (known: --ar, --chaos, --stylize, --no, --seed, --weird, --q, --exp, --iw, --sref, --sw, --v, --niji, --tile, --style, --raw)",
    ],
    [
      { name: "a", mode: "advanced", prompt: "a fox --c 101" },
      "prompt: --c: must be a whole number from 0 to 100",
    ],
    [
      { name: "a", mode: "advanced", prompt: "a fox --seed 4294967296" },
      "prompt: --seed: must be a whole number from 0 to 4294967295",
    ],
    [{ name: "a", mode: "advanced", prompt: "a fox --q 3" }, "prompt: --q: must be 1, 2 or 4"],
    [
      { name: "a", mode: "advanced", prompt: "a fox --ar wide" },
      "prompt: --ar: must be W:H with two positive whole numbers, e.g. 16:9",
    ],
    [{ ...fox, processMode: "turbo" }, 'processMode: Invalid option: expected one of "fast"|"relax"'],
    [{ ...fox, colour: "red" }, "unknown field colour"],
  ])("refuses %j with a 400 naming the field and the rule", async (body, message) => {
    const { apiKey, accountId } = await api.createAccount();
    const response = await send("POST", "/v1/image-generations", apiKey, body);
    expect(response.status).toBe(400);
    expect(await readJson(response)).toEqual({ statusCode: 400, error: "Bad Request", message: [message] });
    expect(await prisma().generation.count({ where: { accountId } })).toBe(0);
  });

  it("accepts values as strings or numbers, and every advanced-mode flag", async () => {
    const { apiKey } = await api.createAccount();
    const simple = await create(apiKey, {
      ...fox,
      params: [
        { name: "chaos", value: "20" },
        { name: "stylize", value: 300 },
        { name: "Time", value: "night" },
        { name: "interdiction", value: "trees, cars" },
        { name: "camera", value: "35mm" },
        { name: "templatePrompt", value: "realisticManuel" },
      ],
    });
    expect(simple.status).toBe(1);
    const advanced = await create(apiKey, {
      name: "Advanced fox",
      mode: "advanced",
      prompt:
        "a red fox --ar 7:4 --c 20 --s 300 --no trees, cars --seed 42 --w 100 --q 2 --exp 10 --iw 1.5 --sref https://example.com/a.png --sw 200 --v 6.1 --tile --style raw",
    });
    expect(advanced).toMatchObject({ mode: "advanced", params: [] });
    for (const { id } of [simple, advanced]) expect((await finished(apiKey, id)).status).toBe(3);
  });

  it("runs a generation through its lifecycle, one event per change, into 4 displayable images", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images: 10, f_images_print: 5 } });
    const created = await create(apiKey, {
      ...fox,
      additionalPrompt: "Winter poster:",
      optimizePrompt: true,
      tags: ["winter"],
      metaData: { channel: "C42" },
    });
    expect(created).toMatchObject({
      id: expect.any(String),
      name: fox.name,
      prompt: fox.prompt,
      additionalPrompt: "Winter poster:",
      mode: "simple",
      optimizePrompt: true,
      processMode: "relax",
      status: 1,
      params: fox.params,
      images: [],
      nbImages: 0,
      tags: ["winter"],
      metaData: { channel: "C42" },
    });
    expect(await credit(apiKey, "f_images_print")).toBe(4);

    const done = await finished(apiKey, created.id);
    expect(done).toMatchObject({ status: 3, nbImages: 4, prompt: fox.prompt });
    expect(done.optimizedPrompt).toMatch(/^a red fox in the snow, .+/);
    expect(done.failureReason).toBeUndefined();
    expect(done.images).toHaveLength(4);
    expect(new Set(done.images.map((image: JsonBody) => image.id)).size).toBe(4);

    const recorded = await events(created.id);
    expect(recorded.map((event) => event.type)).toEqual(COMPLETED_LIFECYCLE);
    expect(recorded.map((event) => (event.payload as JsonBody).status)).toEqual([1, 2, 2, 2, 2, 2, 3]);
    expect(recorded.slice(2, 6).map((event) => (event.payload as JsonBody).nbImages)).toEqual([1, 2, 3, 4]);
    expect(recorded.every((event) => event.accountId === accountId)).toBe(true);
    expect(recorded.at(-1)?.payload).toEqual(done);

    for (const image of done.images) {
      expect(image).toMatchObject({ free: false, validate: true, titles: { en: fox.prompt } });
      const full = await display(image.urlFull, apiKey);
      expect(full.status).toBe(200);
      expect(await jpegSize(await full.arrayBuffer())).toEqual({ format: "jpeg", width: 1024, height: 576 });
      const preview = await display(image.url);
      expect(await jpegSize(await preview.arrayBuffer())).toEqual({
        format: "jpeg",
        width: 512,
        height: 288,
      });
    }
    // The held credit was spent, once.
    expect(await credit(apiKey, "f_images_print")).toBe(4);
    const ledger = await prisma().creditLedgerEntry.findMany({
      where: { bucket: { accountId, type: "f_images_print" }, reference: created.id },
    });
    expect(ledger.map((entry) => entry.amount)).toEqual([-1]);
  });

  it("treats generated images as images: buy, download and the downloaded list, but not search", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images: 10, f_images_print: 5 } });
    const done = await finished(apiKey, (await create(apiKey)).id);
    const [image] = done.images;
    const bought = await send("POST", "/v1/images/buy", apiKey, { id: image.id });
    expect(bought.status).toBe(200);
    expect(await credit(apiKey, "f_images")).toBe(9);
    const download = await send("POST", "/v1/images/download", apiKey, { id: image.id });
    expect(await jpegSize(await download.arrayBuffer())).toEqual({
      format: "jpeg",
      width: 1024,
      height: 576,
    });
    const downloaded = await readJson(await send("POST", "/v1/images/downladed", apiKey, {}));
    expect(downloaded.images.map((entry: JsonBody) => entry.id)).toContain(image.id);
    const found = await readJson(
      await send("POST", "/v1/images/search", apiKey, { search: "red fox snow", limit: 100 }),
    );
    expect(found.images.map((entry: JsonBody) => entry.id)).not.toContain(image.id);
    const stranger = await api.createAccount();
    expect((await send("POST", "/v1/images/buy", stranger.apiKey, { id: image.id })).status).toBe(404);
  });

  it("ends a refused description in Error, then takes an update and a retry to Done", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images_print: 2 } });
    const refused = await create(apiKey, { ...fox, prompt: "a Nude statue in a garden" });
    expect(await finished(apiKey, refused.id)).toMatchObject({
      status: 4,
      failureReason: "description not accepted",
      images: [],
    });
    expect((await events(refused.id)).map((event) => event.type)).toEqual([
      "print.created",
      "print.active",
      "print.failed",
    ]);
    expect(await credit(apiKey, "f_images_print")).toBe(2);

    const updated = await send("PUT", `/v1/image-generations/${refused.id}`, apiKey, {
      prompt: "a marble statue in a garden",
    });
    expect(updated.status).toBe(200);
    expect(await readJson(updated)).toMatchObject({ status: 4, prompt: "a marble statue in a garden" });
    const retried = await send("POST", `/v1/image-generations/retry/${refused.id}`, apiKey);
    expect(retried.status).toBe(200);
    expect(await readJson(retried)).toMatchObject({ status: 1, images: [] });
    expect(await credit(apiKey, "f_images_print")).toBe(1);
    const done = await finished(apiKey, refused.id);
    expect(done).toMatchObject({ status: 3, nbImages: 4 });
    expect(done.failureReason).toBeUndefined();
    expect((await events(refused.id)).map((event) => event.type)).toEqual([
      "print.created",
      "print.active",
      "print.failed",
      ...COMPLETED_LIFECYCLE,
    ]);
    const again = await send("POST", `/v1/image-generations/retry/${refused.id}`, apiKey);
    expect(await readJson(again)).toEqual({
      statusCode: 409,
      error: "Conflict",
      message: ["only a generation in Error can be retried; this one is Done"],
    });
  });

  it("checks an updated prompt against the mode it will have", async () => {
    const { apiKey } = await api.createAccount();
    const done = await finished(apiKey, (await create(apiKey)).id);
    const path = `/v1/image-generations/${done.id}`;
    const flagged = await send("PUT", path, apiKey, { prompt: "a fox --ar 16:9" });
    expect(await readJson(flagged)).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: ["prompt: flags such as --ar are not allowed in simple mode; use params"],
    });
    const advanced = await send("PUT", path, apiKey, { mode: "advanced", prompt: "a fox --ar 16:9" });
    expect(await readJson(advanced)).toMatchObject({
      mode: "advanced",
      prompt: "a fox --ar 16:9",
      params: [],
    });
    const processMode = await send("PUT", path, apiKey, { processMode: "relax" });
    expect((await readJson(processMode)).message).toEqual([
      "processMode: is chosen at creation and cannot be changed",
    ]);
  });
});
