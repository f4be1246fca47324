import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { INestApplicationContext } from "@nestjs/common";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { COMPLETED_LIFECYCLE } from "../../../tests/support/generation-events.js";
import { jpegSize } from "../../../tests/support/images.js";
import { type JsonBody, readJson } from "../../../tests/support/json.js";
import { start, stop } from "../../../tests/support/start-command.mjs";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { createWorkerContext, type OpenResources, openResources } from "../src/app.factory.js";
import type { GenerationsConfig, LocalStorageConfig } from "../src/common/config.js";
import { runGenerationJob } from "../src/generations/generation.jobs.js";
import { GenerationRunnerService } from "../src/generations/generation-runner.service.js";
import { GenerationsRepository } from "../src/generations/generations.repository.js";
import { JobRepository } from "../src/jobs/job.repository.js";

const FINISHED = [3, 4];

const fox = {
  name: "Fox in the snow",
  prompt: "a red fox in the snow",
  mode: "simple",
  params: [
    { name: "format", value: "16:9" },
    { name: "weather", value: "snowy" },
    { name: "time", value: "sunrise" },
  ],
};

/** Requests and reads shared by the suites below, each with its own API. */
function client(api: () => TestApi) {
  const prisma = () => api().resources.database.prisma;
  const send = (method: string, path: string, apiKey: string, json?: unknown) =>
    api().request(path, { apiKey, method, ...(json !== undefined && { json }) });
  return {
    prisma,
    send,
    create: async (apiKey: string, body: unknown = fox) => {
      const response = await send("POST", "/v1/image-generations", apiKey, body);
      expect(response.status, JSON.stringify(await response.clone().json())).toBe(201);
      return readJson(response);
    },
    get: async (apiKey: string, id: string) =>
      readJson(await send("GET", `/v1/image-generations/${id}`, apiKey)),
    /** Polls Get until the generation is Done or in Error. */
    finished: async (apiKey: string, id: string, timeoutMs = 60_000): Promise<JsonBody> => {
      let generation: JsonBody = {};
      await until(
        async () => {
          generation = await readJson(await send("GET", `/v1/image-generations/${id}`, apiKey));
          return FINISHED.includes(generation.status);
        },
        { timeoutMs, what: `generation ${id} to finish` },
      );
      return generation;
    },
    /** The generation's outbox events, oldest first. */
    events: async (generationId: string) =>
      prisma().outboxEvent.findMany({
        where: { generationId },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      }),
    /** A Display Image URL, asked of this test's API (the URL names the configured public address). */
    display: (url: string, apiKey?: string) =>
      api().request(new URL(url).pathname, { ...(apiKey && { apiKey }) }),
    credit: async (apiKey: string, type: string) =>
      (await readJson(await send("GET", "/v1/credit", apiKey))).credits.find(
        (bucket: { type: string }) => bucket.type === type,
      )?.credit,
  };
}

/** Files stored for a generation, under the local storage directory. */
async function storedFiles(api: TestApi, generationId: string): Promise<string[]> {
  const dir = join((api.resources.config.storage as LocalStorageConfig).dir, "generations", generationId);
  return readdir(dir, { recursive: true }).then(
    (entries) => entries.filter((entry) => entry.endsWith(".jpg")),
    () => [],
  );
}

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

  it("holds one generation credit and writes nothing when none is left (402)", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images_print: 1 } });
    await create(apiKey);
    const refused = await send("POST", "/v1/image-generations", apiKey, fox);
    expect(await readJson(refused)).toEqual({
      statusCode: 402,
      error: "Payment Required",
      message: ["no f_images_print credit left for a generation (0 left)"],
    });
    expect(await prisma().generation.count({ where: { accountId } })).toBe(1);
    expect(await prisma().outboxEvent.count({ where: { accountId, type: "print.created" } })).toBe(1);
  });

  it("holds exactly the credits there are when 12 creates race for 5", async () => {
    const { apiKey, accountId } = await api.createAccount({ credits: { f_images_print: 5 } });
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => send("POST", "/v1/image-generations", apiKey, fox)),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(5).fill(201), ...Array(7).fill(402)]);
    const created = await prisma().generation.findMany({ where: { accountId }, select: { id: true } });
    expect(created).toHaveLength(5);
    const debits = await prisma().creditLedgerEntry.findMany({
      where: { bucket: { accountId, type: "f_images_print" }, reason: "generation" },
    });
    expect(debits.map((entry) => entry.reference).sort()).toEqual(created.map(({ id }) => id).sort());
    expect(debits.every((entry) => entry.amount === -1)).toBe(true);
    const bucket = await prisma().creditBucket.findFirst({ where: { accountId, type: "f_images_print" } });
    expect(bucket?.balance).toBe(0);
    expect(await prisma().outboxEvent.count({ where: { accountId, type: "print.created" } })).toBe(5);
  });

  it("lets only dedicated accounts choose the process mode, fast while their quota lasts", async () => {
    const standard = await api.createAccount();
    const forbidden = await send("POST", "/v1/image-generations", standard.apiKey, {
      ...fox,
      processMode: "fast",
    });
    expect(await readJson(forbidden)).toEqual({
      statusCode: 403,
      error: "Forbidden",
      message: ["processMode is available to accounts on the dedicated plan only"],
    });
    const { apiKey } = await api.createAccount({
      plan: "dedicated",
      credits: { f_images_print: 5, f_images_print_fast: 1 },
    });
    expect((await create(apiKey)).processMode).toBe("fast");
    expect(await credit(apiKey, "f_images_print_fast")).toBe(0);
    expect((await create(apiKey)).processMode).toBe("relax");
    const spent = await send("POST", "/v1/image-generations", apiKey, { ...fox, processMode: "fast" });
    expect(await readJson(spent)).toMatchObject({
      statusCode: 402,
      message: ["the fast generation quota is spent; use processMode relax or wait for its renewal"],
    });
  });

  it("lists, filters and pages an account's generations", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images_print: 5 } });
    const first = await create(apiKey, { ...fox, name: "Alpine lake", tags: ["water"] });
    const second = await create(apiKey, { ...fox, name: "Fox at dawn", tags: ["animal"] });
    const refused = await create(apiKey, { ...fox, name: "Fox refused", prompt: "gore" });
    for (const { id } of [first, second, refused]) await finished(apiKey, id);
    const find = async (query: string) =>
      readJson(await send("GET", `/v1/image-generations?${query}`, apiKey)).then((list: JsonBody) => ({
        total: list.filteredResults,
        names: list.prints.map((print: JsonBody) => print.name),
      }));
    expect(await find("")).toEqual({ total: 3, names: ["Fox refused", "Fox at dawn", "Alpine lake"] });
    expect(await find("sort=oldest&limit=1&offset=1")).toEqual({ total: 3, names: ["Fox at dawn"] });
    expect(await find("name=fox")).toEqual({ total: 2, names: ["Fox refused", "Fox at dawn"] });
    expect(await find("tag=water")).toEqual({ total: 1, names: ["Alpine lake"] });
    expect(await find("status=4")).toEqual({ total: 1, names: ["Fox refused"] });
    const bad = await send("GET", "/v1/image-generations?status=7&limit=500", apiKey);
    expect(bad.status).toBe(400);
  });

  it("keeps each account to its own generations (404 otherwise)", async () => {
    const owner = await api.createAccount();
    const other = await api.createAccount();
    const generation = await create(owner.apiKey);
    await finished(owner.apiKey, generation.id);
    const notFound = [`no generation with id ${generation.id} in this account`];
    for (const [method, path, body] of [
      ["GET", `/v1/image-generations/${generation.id}`, undefined],
      ["PUT", `/v1/image-generations/${generation.id}`, { name: "mine" }],
      ["POST", `/v1/image-generations/retry/${generation.id}`, undefined],
    ] as const) {
      const response = await send(method, path, other.apiKey, body);
      expect(await readJson(response)).toEqual({ statusCode: 404, error: "Not Found", message: notFound });
    }
    const mine = await create(other.apiKey);
    const mixed = await send("DELETE", "/v1/image-generations", other.apiKey, {
      printIds: [mine.id, generation.id],
    });
    expect(await readJson(mixed)).toEqual({ deleted: [mine.id], notFound: [generation.id] });
    expect(await prisma().generation.count({ where: { id: generation.id } })).toBe(1);
    expect((await send("GET", "/v1/image-generations/not-an-id", owner.apiKey)).status).toBe(404);
  });

  it("deletes generations with their stored images, keeping those somebody bought", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images: 10, f_images_print: 5 } });
    const done = await finished(apiKey, (await create(apiKey)).id);
    const [bought, ...unsold] = done.images;
    await send("POST", "/v1/images/buy", apiKey, { id: bought.id });
    expect(await storedFiles(api, done.id)).toHaveLength(4);

    const deleted = await send("DELETE", "/v1/image-generations", apiKey, { printIds: [done.id] });
    expect(deleted.status).toBe(200);
    expect(await readJson(deleted)).toEqual({ deleted: [done.id], notFound: [] });
    expect((await send("GET", `/v1/image-generations/${done.id}`, apiKey)).status).toBe(404);
    for (const image of unsold) expect((await display(image.urlFull)).status).toBe(404);
    expect(await storedFiles(api, done.id)).toHaveLength(1);
    const kept = await send("POST", "/v1/images/download", apiKey, { id: bought.id });
    expect(await jpegSize(await kept.arrayBuffer())).toMatchObject({ width: 1024, height: 576 });
  });
});

describe("image generations waiting for a worker", () => {
  let api: TestApi;
  let worker: { resources: OpenResources; context: INestApplicationContext } | undefined;
  beforeAll(async () => {
    api = await startTestApi({ env: { ROLE: "api" } });
  });
  afterEach(async () => {
    await worker?.context.close();
    await worker?.resources.close();
    worker = undefined;
  });
  afterAll(() => api.close());
  const { prisma, send, create, finished, events, credit } = client(() => api);

  /** A worker in this process, on the API's database and queues, with these generation settings. */
  async function startWorker(generations: Partial<GenerationsConfig>) {
    const config = {
      ...api.resources.config,
      role: "worker" as const,
      generations: { ...api.resources.config.generations, ...generations },
    };
    const resources = await openResources(config, api.resources.logger);
    worker = { resources, context: await createWorkerContext(resources) };
  }

  it("refuses Update and Retry while Pending or Processing (409), and deletes with the credit back", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images_print: 3 } });
    const pending = await create(apiKey);
    const path = `/v1/image-generations/${pending.id}`;
    const editWhile = async (status: string) => {
      const update = await send("PUT", path, apiKey, { name: "renamed" });
      expect(await readJson(update)).toEqual({
        statusCode: 409,
        error: "Conflict",
        message: [`a generation cannot be changed while it is ${status}; wait until it is Done or in Error`],
      });
      const retry = await send("POST", `/v1/image-generations/retry/${pending.id}`, apiKey);
      expect((await readJson(retry)).message).toEqual([
        `only a generation in Error can be retried; this one is ${status}`,
      ]);
    };
    await editWhile("Pending");
    const claimed = await api.app.get(GenerationsRepository).claim(pending.id, 1, "a-worker");
    expect(claimed.isHeld).toBe(true);
    await editWhile("Processing");
    expect((await prisma().generation.findUniqueOrThrow({ where: { id: pending.id } })).name).toBe(fox.name);

    expect(await credit(apiKey, "f_images_print")).toBe(2);
    const deleted = await send("DELETE", "/v1/image-generations", apiKey, { printIds: [pending.id] });
    expect(deleted.status).toBe(200);
    expect(await credit(apiKey, "f_images_print")).toBe(3);
  });

  it("runs fast generations before relax ones", async () => {
    const { apiKey } = await api.createAccount({
      plan: "dedicated",
      credits: { f_images_print: 10, f_images_print_fast: 10 },
    });
    const relax = [];
    for (let index = 0; index < 3; index += 1)
      relax.push(await create(apiKey, { ...fox, processMode: "relax" }));
    const fast = [];
    for (let index = 0; index < 2; index += 1)
      fast.push(await create(apiKey, { ...fox, processMode: "fast" }));

    await startWorker({ concurrency: 1 });
    for (const { id } of [...relax, ...fast]) expect((await finished(apiKey, id)).status).toBe(3);

    const started = await prisma().outboxEvent.findMany({
      where: { type: "print.active", generationId: { in: [...relax, ...fast].map(({ id }) => id) } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    expect(started.map((event) => (event.payload as JsonBody).processMode)).toEqual([
      "fast",
      "fast",
      "relax",
      "relax",
      "relax",
    ]);
    // Within a process mode, first come first served.
    expect(started.slice(2).map((event) => event.generationId)).toEqual(relax.map(({ id }) => id));
    expect((await events(relax[0].id)).map((event) => event.type)).toEqual(COMPLETED_LIFECYCLE);
  });

  it("ends a generation in Error, its credit back, when the engine does not answer in time", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images_print: 1 } });
    const generation = await create(apiKey);
    await startWorker({ engineTimeoutSeconds: 1, proceduralImageDelayMs: 5_000 });
    expect(await finished(apiKey, generation.id)).toMatchObject({
      status: 4,
      failureReason: "the image engine did not answer within 1 s",
      images: [],
    });
    expect(await credit(apiKey, "f_images_print")).toBe(1);
    expect((await events(generation.id)).map((event) => event.type)).toEqual([
      "print.created",
      "print.active",
      "print.failed",
    ]);
  });

  it("queues again, under a fresh job id, a generation whose job ran out of attempts while the database refused it", {
    timeout: 60_000,
  }, async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images_print: 1 } });
    const generation = await create(apiKey);
    // The database refuses every change to this generation, as it does while it is down.
    await prisma().$executeRawUnsafe(
      "CREATE FUNCTION refuse_changes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the database is away'; END $$",
    );
    await prisma().$executeRawUnsafe(
      `CREATE TRIGGER refuse_changes BEFORE UPDATE ON generations FOR EACH ROW WHEN (OLD.id = '${generation.id}') EXECUTE FUNCTION refuse_changes()`,
    );
    await startWorker({});
    const queue = api.app.get(JobRepository).queue(runGenerationJob);
    await until(async () => (await queue.getJobState(`generation-${generation.id}-1`)) === "failed", {
      timeoutMs: 40_000,
      what: "the job to run out of attempts",
    });
    await prisma().$executeRawUnsafe("DROP TRIGGER refuse_changes ON generations");
    // Unadvanced long enough for the sweep to look at it.
    await prisma()
      .$executeRaw`UPDATE generations SET updated_at = now() - interval '1 hour' WHERE id = ${generation.id}::uuid`;
    await worker?.context.get(GenerationRunnerService).sweep({ afterOutage: false });
    expect(await finished(apiKey, generation.id, 15_000)).toMatchObject({ status: 3 });
    expect((await events(generation.id)).map((event) => event.type)).toEqual(COMPLETED_LIFECYCLE);
    expect(await credit(apiKey, "f_images_print")).toBe(0);
  });

  it("ends in Error, its credit back, a generation still unfinished past its lifetime", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images_print: 1 } });
    const generation = await create(apiKey);
    await api.app.get(JobRepository).queue(runGenerationJob).remove(`generation-${generation.id}-1`);
    await prisma()
      .$executeRaw`UPDATE generations SET queued_at = now() - interval '2 hours' WHERE id = ${generation.id}::uuid`;
    await startWorker({});
    await worker?.context.get(GenerationRunnerService).sweep({ afterOutage: false });
    expect(await finished(apiKey, generation.id, 5_000)).toMatchObject({
      status: 4,
      failureReason: "the generation could not be finished within 3600 s; its credit is returned: retry it",
    });
    expect(await credit(apiKey, "f_images_print")).toBe(1);
    expect((await events(generation.id)).map((event) => event.type)).toEqual([
      "print.created",
      "print.failed",
    ]);
  });
});

describe("image generations on worker processes that die or lose their generation", {
  timeout: 90_000,
}, () => {
  let api: TestApi;
  const workers: ReturnType<typeof start>[] = [];
  beforeAll(async () => {
    api = await startTestApi({ env: { ROLE: "api" } });
  });
  afterAll(async () => {
    if (process.env.DEBUG_GEN) for (const worker of workers) console.log(worker.output());
    for (const worker of workers) await stop(worker);
    await api.close();
  });
  const { prisma, send, create, get, finished, events, display } = client(() => api);

  /** A real worker process (what ROLE=worker runs), drawing one image every 400 ms unless told otherwise. */
  function startWorker(env: Record<string, string> = {}) {
    const { config } = api.resources;
    const worker = start({
      ROLE: "worker",
      DATABASE_URL: api.database.url,
      REDIS_URL: config.redis.url,
      REDIS_PREFIX: api.resources.redisPrefix,
      DATA_DIR: config.dataDir,
      STORAGE_DIR: (config.storage as LocalStorageConfig).dir,
      DEMO_ACCOUNT: "false",
      PROCEDURAL_IMAGE_DELAY_MS: "400",
      GENERATION_LOCK_SECONDS: "2",
      ...env,
    });
    workers.push(worker);
    return worker;
  }

  const progressOf = async (id: string) =>
    (await events(id)).filter((event) => event.type === "print.progress").length;

  it("finishes, once, a generation whose worker was killed in the middle", async () => {
    const { apiKey } = await api.createAccount();
    const generation = await create(apiKey);
    const doomed = startWorker();
    await until(async () => (await progressOf(generation.id)) >= 2);
    doomed.child.kill("SIGKILL");
    expect((await get(apiKey, generation.id)).status).toBe(2);

    startWorker();
    const done = await finished(apiKey, generation.id);
    expect(done).toMatchObject({ status: 3, nbImages: 4 });
    expect((await events(generation.id)).map((event) => event.type)).toEqual(COMPLETED_LIFECYCLE);
    const images = await prisma().image.findMany({
      where: { generationId: generation.id },
      orderBy: { generationIndex: "asc" },
    });
    expect(images.map((image) => image.generationIndex)).toEqual([0, 1, 2, 3]);
    expect(await storedFiles(api, generation.id)).toHaveLength(4);
    for (const image of done.images) {
      const full = await display(image.urlFull, apiKey);
      expect(await jpegSize(await full.arrayBuffer())).toEqual({ format: "jpeg", width: 1024, height: 576 });
    }
  });

  it("hands a generation to another worker at once when its worker is stopped (SIGTERM) in the middle", async () => {
    const { apiKey } = await api.createAccount();
    const generation = await create(apiKey);
    // Locks that would keep the job for 30 s, and a job that outlasts the shutdown grace.
    const slow = { PROCEDURAL_IMAGE_DELAY_MS: "1000", GENERATION_LOCK_SECONDS: "30" };
    const stopping = startWorker({ ...slow, SHUTDOWN_GRACE_MS: "1000" });
    await until(async () => (await progressOf(generation.id)) >= 1);
    const row = () => prisma().generation.findUniqueOrThrow({ where: { id: generation.id } });
    const first = (await row()).workerToken;
    await stop(stopping);
    startWorker(slow);
    await until(
      async () => {
        const { workerToken, status } = await row();
        return status === 3 || (workerToken !== null && workerToken !== first);
      },
      { timeoutMs: 15_000, what: "another worker to take the generation over" },
    );
    expect(await finished(apiKey, generation.id)).toMatchObject({ status: 3, nbImages: 4 });
    expect((await events(generation.id)).map((event) => event.type)).toEqual(COMPLETED_LIFECYCLE);
  });

  it("stops a running job cleanly when its generation is deleted", async () => {
    startWorker();
    const { apiKey } = await api.createAccount();
    const generation = await create(apiKey);
    await until(async () => (await progressOf(generation.id)) >= 1);
    const deleted = await send("DELETE", "/v1/image-generations", apiKey, { printIds: [generation.id] });
    expect(deleted.status).toBe(200);

    const queue = api.app.get(JobRepository).queue(runGenerationJob);
    await until(async () => (await queue.getJob(`generation-${generation.id}-1`))?.finishedOn !== undefined);
    const job = await queue.getJob(`generation-${generation.id}-1`);
    expect(await job?.getState()).toBe("completed");
    expect(await prisma().image.count({ where: { generationId: generation.id } })).toBe(0);
    expect(await storedFiles(api, generation.id)).toEqual([]);
    expect(await prisma().outboxEvent.count({ where: { generationId: generation.id } })).toBeGreaterThan(0);
  });
});
