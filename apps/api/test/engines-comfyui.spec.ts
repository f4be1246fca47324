import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import {
  CHECKPOINTS,
  type FakeComfyUi,
  OUT_OF_MEMORY,
  SAMPLERS,
  startFakeComfyUi,
} from "../../../tests/support/fake-comfyui.js";
import { BLUE, meanColour } from "../../../tests/support/fake-pictures.js";
import { COMPLETED_LIFECYCLE } from "../../../tests/support/generation-events.js";
import { FOX, generationsOf, useEngineTestApi } from "../../../tests/support/generation-runs.js";
import { usePictureServer } from "../../../tests/support/picture-server.js";
import { until } from "../../../tests/support/until.js";

const CHECKPOINT = "sd_xl_base_1.0.safetensors";
const STEPS = 20;

/** A user's exported workflow (API format): the default's nodes, with its own prefix and sampler. */
const USER_WORKFLOW = {
  "1": { class_type: "CheckpointLoaderSimple", inputs: { ckpt_name: "flux1-schnell-fp8.safetensors" } },
  "2": { class_type: "CLIPTextEncode", inputs: { text: "{{prompt}}, film grain", clip: ["1", 1] } },
  "3": { class_type: "CLIPTextEncode", inputs: { text: "{{negative}}", clip: ["1", 1] } },
  "4": {
    class_type: "EmptyLatentImage",
    inputs: { width: "{{width}}", height: "{{height}}", batch_size: 4 },
  },
  "5": {
    class_type: "KSampler",
    inputs: {
      seed: "{{seed}}",
      steps: 4,
      cfg: 1,
      sampler_name: "euler_ancestral",
      scheduler: "simple",
      denoise: 1,
      model: ["1", 0],
      positive: ["2", 0],
      negative: ["3", 0],
      latent_image: ["4", 0],
    },
  },
  "6": { class_type: "VAEDecode", inputs: { samples: ["5", 0], vae: ["1", 2] } },
  "7": { class_type: "SaveImage", inputs: { filename_prefix: "mine", images: ["6", 0] } },
};

type Workflow = Record<string, { class_type: string; inputs: Record<string, unknown> }>;

function nodeOf(workflow: Workflow, classType: string) {
  const node = Object.values(workflow).find((candidate) => candidate.class_type === classType);
  if (!node) throw new Error(`no ${classType} node`);
  return node.inputs;
}

const pictures = usePictureServer();

const comfyEnv = (fakeUrl: string): NodeJS.ProcessEnv => ({
  IMAGE_ENGINE: "comfyui",
  COMFYUI_BASE_URL: fakeUrl,
  COMFYUI_CHECKPOINT: CHECKPOINT,
  COMFYUI_STEPS: String(STEPS),
  COMFYUI_SAMPLER: "dpmpp_2m",
  COMFYUI_SCHEDULER: "karras",
  COMFYUI_QUEUE_START_SECONDS: "2",
  IMAGE_PROMPT_ALLOW_PRIVATE: "true",
});

describe("the comfyui engine", () => {
  const engine = useEngineTestApi<FakeComfyUi>(startFakeComfyUi, comfyEnv);
  beforeEach(() => {
    engine.fake.checkpoints = [...CHECKPOINTS];
    engine.fake.samplers = [...SAMPLERS];
    engine.fake.setBusy(false);
  });

  async function run(body: unknown = FOX) {
    const { apiKey } = await engine.api.createAccount();
    const generations = generationsOf(engine.api, apiKey);
    const before = engine.fake.requests.length;
    const created = await generations.create(body);
    const finished = await generations.finished(created.id);
    return { generations, finished, requests: engine.fake.requests.slice(before) };
  }
  const queued = (requests: { method: string; path: string; body: unknown }[]) =>
    requests.filter((request) => request.method === "POST" && request.path === "/prompt");

  it("queues the default text-to-image workflow with its client_id: checkpoint, a batch of 4, seed, size, negative, steps, sampler", async () => {
    const { finished, requests } = await run({
      name: "Fox",
      mode: "advanced",
      prompt: "a red fox in the snow --ar 16:9 --no trees, cars --seed 42 --s 500",
    });
    expect(finished).toMatchObject({
      status: 3,
      nbImages: 4,
      engine: { name: "comfyui", model: CHECKPOINT },
    });
    const [prompt] = queued(requests);
    const body = prompt?.body as { prompt: Workflow; client_id: string };
    expect(body.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(nodeOf(body.prompt, "CheckpointLoaderSimple")).toEqual({ ckpt_name: CHECKPOINT });
    expect(nodeOf(body.prompt, "EmptyLatentImage")).toEqual({ width: 1024, height: 576, batch_size: 4 });
    expect(nodeOf(body.prompt, "KSampler")).toMatchObject({
      seed: 42,
      steps: STEPS,
      cfg: 5,
      sampler_name: "dpmpp_2m",
      scheduler: "karras",
      denoise: 1,
    });
    const texts = Object.values(body.prompt)
      .filter((node) => node.class_type === "CLIPTextEncode")
      .map((node) => node.inputs.text);
    expect(texts).toEqual(["a red fox in the snow", "trees, cars"]);
  });

  it("follows the run on its websocket, reads /history and fetches the 4 images with /view, stored as JPEGs of the ratio", async () => {
    const { finished, generations, requests } = await run();
    const promptId = [...engine.fake.prompts.values()].at(-1)?.id;
    expect(requests.map((request) => `${request.method} ${request.path.split("?")[0]}`)).toEqual([
      "POST /prompt",
      `GET /history/${promptId}`,
      "GET /view",
      "GET /view",
      "GET /view",
      "GET /view",
    ]);
    expect(requests[2]?.path).toMatch(/^\/view\?filename=imagehub_\d+_\.png&subfolder=&type=output$/);
    expect(await generations.sizes(finished)).toEqual(
      Array(4).fill({ format: "jpeg", width: 1024, height: 576 }),
    );
    expect(await generations.events(finished.id)).toEqual(COMPLETED_LIFECYCLE);
  });

  it("records the seed it drew with: the same description, the same seed", async () => {
    const first = await run();
    const second = await run();
    const seeds = await Promise.all(
      [first, second].map(async ({ requests }) => {
        const body = queued(requests)[0]?.body as { prompt: Workflow };
        return nodeOf(body.prompt, "KSampler").seed;
      }),
    );
    expect(seeds[0]).toEqual(seeds[1]);
    const images = await engine.api.resources.database.prisma.image.findMany({
      where: { generationId: first.finished.id },
    });
    // Stored as the int4 of the same bits, as every engine's seed.
    expect(images.map((image) => image.seed)).toEqual(Array(4).fill((seeds[0] as number) | 0));
  });

  it("shows the sampler's progress from the websocket while it draws", async () => {
    const held = engine.fake.holdAtStep(8);
    const { apiKey } = await engine.api.createAccount();
    const generations = generationsOf(engine.api, apiKey);
    const created = await generations.create(FOX);
    await held.reached;
    await until(async () => (await generations.get(created.id)).progress === 40, { what: "progress 40" });
    expect(await generations.get(created.id)).toMatchObject({ status: 2, nbImages: 0 });
    held.release();
    const finished = await generations.finished(created.id);
    expect(finished).toMatchObject({ status: 3, nbImages: 4 });
    const recorded = await engine.api.resources.database.prisma.generation.findUniqueOrThrow({
      where: { id: created.id },
    });
    expect(recorded.progress).toBeGreaterThanOrEqual(40);
  });

  it("draws from an image prompt with the image-to-image workflow: the picture uploaded, loaded, scaled, repeated 4 times, partly redrawn", async () => {
    const { finished, generations, requests } = await run({
      ...FOX,
      params: [...FOX.params, { name: "fromImageUrl", value: `${pictures.url}/blue.png` }],
    });
    expect(finished).toMatchObject({ status: 3, nbImages: 4 });
    const upload = requests.find((request) => request.path === "/upload/image");
    const file = upload?.form?.get("image") as File;
    expect(upload?.form?.get("type")).toBe("input");
    expect(await meanColour(await file.arrayBuffer())).toEqual(BLUE);
    const body = queued(requests)[0]?.body as { prompt: Workflow };
    expect(nodeOf(body.prompt, "LoadImage")).toEqual({ image: file.name });
    expect(nodeOf(body.prompt, "ImageScale")).toMatchObject({ width: 1024, height: 576, crop: "center" });
    expect(nodeOf(body.prompt, "RepeatLatentBatch")).toMatchObject({ amount: 4 });
    expect(nodeOf(body.prompt, "KSampler")).toMatchObject({ denoise: 0.6 });
    // The fake draws from the picture it was given: the images are blue.
    const colours = await Promise.all((await generations.files(finished)).map((bytes) => meanColour(bytes)));
    for (const colour of colours) expect(colour.b).toBeGreaterThan(colour.r);
  });

  it("reads an image prompt that is one of this server's images from storage, not over HTTP", async () => {
    const { finished: first, generations } = await run();
    const [original] = await generations.files(first);
    const { finished, requests } = await run({
      ...FOX,
      params: [...FOX.params, { name: "fromImageUrl", value: first.images[0].urlFull }],
    });
    expect(finished).toMatchObject({ status: 3 });
    const file = requests.find((request) => request.path === "/upload/image")?.form?.get("image") as File;
    expect(Buffer.from(await file.arrayBuffer())).toEqual(original);
  });

  it("ends in Error naming the checkpoint ComfyUI does not have (400, value_not_in_list)", async () => {
    engine.fake.checkpoints = ["flux1-schnell-fp8.safetensors"];
    const { finished, requests } = await run();
    expect(finished).toMatchObject({
      status: 4,
      failureReason: `the image engine (comfyui) has no checkpoint named ${CHECKPOINT}`,
      engine: { name: "comfyui", model: CHECKPOINT },
    });
    expect(queued(requests)).toHaveLength(1);
  });

  it("ends in Error with ComfyUI's node_errors when it refuses the workflow (400)", async () => {
    engine.fake.samplers = ["euler"];
    const { finished, requests } = await run();
    expect(finished.status).toBe(4);
    expect(finished.failureReason).toBe(
      `the image engine (comfyui) refused the workflow: Prompt outputs failed validation: node 3 (KSampler): Value not in list: sampler_name: 'dpmpp_2m' not in ['euler']`,
    );
    expect(queued(requests)).toHaveLength(1);
  });

  it("ends in Error when the GPU runs out of memory during the run", async () => {
    engine.fake.failNextRun(OUT_OF_MEMORY);
    const { finished } = await run();
    expect(finished).toMatchObject({
      status: 4,
      failureReason:
        "the image engine (comfyui) ran out of GPU memory at node 3 (KSampler): Allocation on device",
    });
  });

  it("takes a workflow its queue never starts off the queue, and ends in Error", async () => {
    engine.fake.setBusy(true);
    const { finished, requests } = await run();
    expect(finished).toMatchObject({
      status: 4,
      failureReason: "the image engine (comfyui) did not start the workflow within 2 s: its queue is busy",
    });
    const deletes = requests.filter((request) => request.path === "/queue").map((request) => request.body);
    expect(deletes).toEqual([{ delete: [expect.any(String)] }]);
    const [{ delete: ids }] = deletes as [{ delete: string[] }];
    expect(engine.fake.removedFromQueue).toContain(ids[0]);
  });

  it("interrupts the run when its generation is deleted, and stores nothing", async () => {
    const held = engine.fake.holdAtStep(3);
    const { apiKey } = await engine.api.createAccount();
    const generations = generationsOf(engine.api, apiKey);
    const created = await generations.create(FOX);
    await held.reached;
    const running = [...engine.fake.prompts.values()].at(-1);
    const deleted = await engine.api.request("/v1/image-generations", {
      apiKey,
      method: "DELETE",
      json: { printIds: [created.id] },
    });
    expect(deleted.status).toBe(200);
    await until(() => running?.state === "interrupted", { what: "the run interrupted" });
    expect(engine.fake.requestsTo("POST", "/interrupt").map((request) => request.body)).toContainEqual({
      prompt_id: running?.id,
    });
    expect(
      await engine.api.resources.database.prisma.image.count({ where: { generationId: created.id } }),
    ).toBe(0);
  });

  it("takes a waiting workflow off the queue when its generation is deleted, without interrupting another's run", async () => {
    engine.fake.setBusy(true);
    const { apiKey } = await engine.api.createAccount();
    const generations = generationsOf(engine.api, apiKey);
    const interruptsBefore = engine.fake.requestsTo("POST", "/interrupt").length;
    const created = await generations.create(FOX);
    await until(() => [...engine.fake.prompts.values()].some((prompt) => prompt.state === "queued"), {
      what: "the prompt queued",
    });
    const waiting = [...engine.fake.prompts.values()].find((prompt) => prompt.state === "queued");
    await engine.api.request("/v1/image-generations", {
      apiKey,
      method: "DELETE",
      json: { printIds: [created.id] },
    });
    await until(() => engine.fake.removedFromQueue.includes(waiting?.id ?? ""), {
      what: "the prompt off the queue",
    });
    expect(engine.fake.requestsTo("POST", "/interrupt")).toHaveLength(interruptsBefore);
  });
});

describe("the comfyui engine with the user's workflow", () => {
  const workflowPath = join(tmpdir(), `imagehub-workflow-${process.pid}.json`);
  const engine = useEngineTestApi<FakeComfyUi>(
    async () => {
      await writeFile(workflowPath, JSON.stringify(USER_WORKFLOW));
      return startFakeComfyUi();
    },
    (fakeUrl) => ({ ...comfyEnv(fakeUrl), COMFYUI_WORKFLOW: workflowPath }),
  );

  it("queues the exported workflow with its placeholders filled, its own nodes kept", async () => {
    const { apiKey } = await engine.api.createAccount();
    const generations = generationsOf(engine.api, apiKey);
    const created = await generations.create({
      name: "Fox",
      mode: "advanced",
      prompt: "a red fox in the snow --ar 9:16 --no trees --seed 7",
    });
    const finished = await generations.finished(created.id);
    // The workflow names its checkpoint itself: no model to record.
    expect(finished).toMatchObject({ status: 3, nbImages: 4, engine: { name: "comfyui" } });
    expect(finished.engine.model).toBeUndefined();
    const body = engine.fake.requestsTo("POST", "/prompt")[0]?.body as { prompt: Workflow };
    expect(body.prompt["2"]?.inputs.text).toBe("a red fox in the snow, film grain");
    expect(body.prompt["3"]?.inputs.text).toBe("trees");
    expect(body.prompt["4"]?.inputs).toEqual({ width: 576, height: 1024, batch_size: 4 });
    expect(body.prompt["5"]?.inputs).toMatchObject({ seed: 7, steps: 4, sampler_name: "euler_ancestral" });
  });
});
