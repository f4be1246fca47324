import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeComfyUi, startFakeComfyUi } from "../../../tests/support/fake-comfyui.js";
import { IMAGES_PATH, startFakeOpenAi } from "../../../tests/support/fake-openai.js";
import type { FakeService } from "../../../tests/support/fake-service.js";
import { FAST_ENGINE_CALLS, FOX, generationsOf } from "../../../tests/support/generation-runs.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";

const withEngine = (engine: string) => ({
  ...FOX,
  params: [...FOX.params, { name: "engine", value: engine }],
});

describe("several engines at once", () => {
  let comfyui: FakeComfyUi;
  let openai: FakeService;
  let api: TestApi;
  beforeAll(async () => {
    comfyui = await startFakeComfyUi();
    openai = await startFakeOpenAi();
    api = await startTestApi({
      env: {
        ...FAST_ENGINE_CALLS,
        IMAGE_ENGINES: "procedural,comfyui,openai",
        IMAGE_ENGINE: "procedural",
        IMAGE_ENGINE_CONCURRENCY: "comfyui=1",
        COMFYUI_BASE_URL: comfyui.url,
        OPENAI_BASE_URL: `${openai.url}/v1`,
        OPENAI_API_KEY: "sk-test-several-engines-0123456789abcdef",
      },
    });
  });
  afterAll(async () => {
    await api?.close();
    await openai?.stop();
    await comfyui?.stop();
  });

  async function account() {
    const { apiKey } = await api.createAccount({ credits: { f_images: 10, f_images_print: 20 } });
    return { apiKey, generations: generationsOf(api, apiKey) };
  }

  it("draws each generation with the engine its params name, the default without one", async () => {
    const { generations } = await account();
    const prompts = comfyui.requestsTo("POST", "/prompt").length;
    const images = openai.requestsTo("POST", IMAGES_PATH).length;
    const created = await Promise.all(
      [withEngine("comfyui"), withEngine("openai"), FOX].map((body) => generations.create(body)),
    );
    const finished = await Promise.all(created.map((generation) => generations.finished(generation.id)));
    expect(finished.map((generation) => [generation.status, generation.engine.name])).toEqual([
      [3, "comfyui"],
      [3, "openai"],
      [3, "procedural"],
    ]);
    expect(comfyui.requestsTo("POST", "/prompt").length - prompts).toBe(1);
    expect(openai.requestsTo("POST", IMAGES_PATH).length - images).toBe(1);
  });

  it("records the engine chosen as the generation is created", async () => {
    const { generations } = await account();
    const created = await generations.create(withEngine("openai"));
    expect(created.engine).toEqual({ name: "openai" });
    const row = await api.resources.database.prisma.generation.findUniqueOrThrow({
      where: { id: created.id },
    });
    expect(row.engine).toBe("openai");
    await generations.finished(created.id);
  });

  it("refuses an engine the server does not run, naming those it does, and holds no credit", async () => {
    const { apiKey } = await account();
    const response = await api.request("/v1/image-generations", {
      apiKey,
      method: "POST",
      json: withEngine("sdwebui"),
    });
    expect(response.status).toBe(400);
    expect((await readJson(response)).message).toEqual([
      "params: engine sdwebui is not one of this server's engines (procedural, comfyui, openai)",
    ]);
    const unknown = await api.request("/v1/image-generations", {
      apiKey,
      method: "POST",
      json: withEngine("dalle"),
    });
    expect(unknown.status).toBe(400);
  });

  it("draws with each engine's own concurrency: a busy engine's generations wait, the others' go on", async () => {
    const { generations } = await account();
    const held = comfyui.holdAtStep(1);
    const prompts = comfyui.requestsTo("POST", "/prompt").length;
    const first = await generations.create(withEngine("comfyui"));
    await held.reached;
    const second = await generations.create(withEngine("comfyui"));
    const other = await generations.create(withEngine("openai"));
    // The later marker: the openai generation finishes while comfyui's one slot is taken.
    expect(await generations.finished(other.id)).toMatchObject({ status: 3 });
    expect(comfyui.requestsTo("POST", "/prompt").length - prompts).toBe(1);
    expect(await generations.get(second.id)).toMatchObject({ status: 1 });
    held.release();
    const finished = await Promise.all(
      [first, second].map((generation) => generations.finished(generation.id)),
    );
    expect(finished.map((generation) => generation.status)).toEqual([3, 3]);
    expect(comfyui.requestsTo("POST", "/prompt").length - prompts).toBe(2);
  });

  // Last: the ComfyUI server goes away for good.
  it("fails the generations of an engine that is down with its reason, never another engine's", async () => {
    await comfyui.stop();
    const { generations } = await account();
    const created = await Promise.all(
      [withEngine("comfyui"), withEngine("openai"), FOX].map((body) => generations.create(body)),
    );
    const finished = await Promise.all(created.map((generation) => generations.finished(generation.id)));
    expect(finished[0]).toMatchObject({ status: 4, engine: { name: "comfyui" } });
    expect(finished[0].failureReason).toBe(
      "the image engine (comfyui) could not be reached: its websocket /ws did not open (3 tries)",
    );
    expect(finished.slice(1).map((generation) => [generation.status, generation.engine.name])).toEqual([
      [3, "openai"],
      [3, "procedural"],
    ]);
  });
});
