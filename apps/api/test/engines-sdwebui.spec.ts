import { beforeEach, describe, expect, it } from "vitest";
import { BLUE, meanColour } from "../../../tests/support/fake-pictures.js";
import {
  DRAWN_SEED,
  IMG2IMG_PATH,
  img2ImgAnswer,
  PROGRESS_PATH,
  progressAnswer,
  startFakeSdWebUi,
  TXT2IMG_PATH,
  txt2ImgAnswer,
} from "../../../tests/support/fake-sdwebui.js";
import { type FakeAnswer, gate, HANG } from "../../../tests/support/fake-service.js";
import { COMPLETED_LIFECYCLE } from "../../../tests/support/generation-events.js";
import {
  FOX,
  generationsOf,
  runGeneration,
  useEngineTestApi,
} from "../../../tests/support/generation-runs.js";
import { usePictureServer } from "../../../tests/support/picture-server.js";
import { until } from "../../../tests/support/until.js";

const API_AUTH = "imagehub:gpu-box-password";

describe("the sdwebui engine", () => {
  const engine = useEngineTestApi(startFakeSdWebUi, (fakeUrl) => ({
    IMAGE_ENGINE: "sdwebui",
    SDWEBUI_BASE_URL: fakeUrl,
    SDWEBUI_API_AUTH: API_AUTH,
    SDWEBUI_MODEL: "sd_xl_base_1.0",
    SDWEBUI_SAMPLER: "DPM++ 2M",
    SDWEBUI_STEPS: "25",
    IMAGE_PROMPT_ALLOW_PRIVATE: "true",
  }));
  const pictures = usePictureServer();
  beforeEach(() => {
    engine.fake.on("POST", TXT2IMG_PATH, (request) => txt2ImgAnswer(request));
    engine.fake.on("POST", IMG2IMG_PATH, (request) => img2ImgAnswer(request));
    engine.fake.on("GET", PROGRESS_PATH, () => progressAnswer(0));
  });

  const run = (body: unknown = FOX) => runGeneration(engine.api, engine.fake, body, { path: TXT2IMG_PATH });

  it("sends POST /sdapi/v1/txt2img with basic auth: a batch of 4, the size, negative prompt, seed, cfg_scale from stylize", async () => {
    const { finished, requests } = await run({
      name: "Fox",
      mode: "advanced",
      prompt: "a red fox in the snow --ar 16:9 --no trees, cars --seed 42 --s 500",
    });
    expect(finished).toMatchObject({ status: 3, engine: { name: "sdwebui", model: "sd_xl_base_1.0" } });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.headers).toMatchObject({
      authorization: `Basic ${Buffer.from(API_AUTH).toString("base64")}`,
      "content-type": "application/json",
    });
    expect(requests[0]?.body).toEqual({
      prompt: "a red fox in the snow",
      negative_prompt: "trees, cars",
      seed: 42,
      batch_size: 4,
      n_iter: 1,
      width: 1024,
      height: 576,
      steps: 25,
      cfg_scale: 5,
      sampler_name: "DPM++ 2M",
      override_settings: { sd_model_checkpoint: "sd_xl_base_1.0" },
    });
  });

  it("asks the server for a seed of its own when the request has none, and words the simple-mode params", async () => {
    const { requests } = await run({
      ...FOX,
      params: [
        { name: "format", value: "4:7" },
        { name: "Time", value: "night" },
        { name: "interdiction", value: "people" },
      ],
    });
    expect(requests[0]?.body).toMatchObject({
      prompt: "a red fox in the snow, high quality realistic photo, at night",
      negative_prompt: "people",
      seed: -1,
      width: 584,
      height: 1024,
      cfg_scale: 7,
    });
  });

  it.each([
    ["16:9", { width: 1024, height: 576 }],
    ["9:16", { width: 576, height: 1024 }],
    ["1:1", { width: 1024, height: 1024 }],
  ])("stores the batch as 4 JPEGs of %s", async (format, size) => {
    const { finished, generations } = await run({ ...FOX, params: [{ name: "format", value: format }] });
    expect(finished).toMatchObject({ status: 3, nbImages: 4 });
    expect(await generations.sizes(finished)).toEqual(Array(4).fill({ format: "jpeg", ...size }));
    expect(await generations.events(finished.id)).toEqual(COMPLETED_LIFECYCLE);
  });

  it("records the seed the server drew with", async () => {
    const { finished } = await run();
    const images = await engine.api.resources.database.prisma.image.findMany({
      where: { generationId: finished.id },
    });
    expect(images.map((image) => image.seed)).toEqual(Array(4).fill(DRAWN_SEED));
  });

  it("shows the server's progress while it draws, then the 4 images", async () => {
    let progress = 0;
    const slow = gate();
    engine.fake.on("GET", PROGRESS_PATH, () => progressAnswer(progress));
    engine.fake.on("POST", TXT2IMG_PATH, async (request) => {
      await slow.opened;
      return txt2ImgAnswer(request);
    });
    const { apiKey } = await engine.api.createAccount();
    const generations = generationsOf(engine.api, apiKey);
    const created = await generations.create(FOX);
    const progressOf = async () => (await generations.get(created.id)).progress;

    progress = 0.3;
    await until(async () => (await progressOf()) === 30, { what: "progress 30" });
    progress = 0.75;
    await until(async () => (await progressOf()) === 75, { what: "progress 75" });
    expect(await generations.get(created.id)).toMatchObject({ status: 2, nbImages: 0 });
    // The server's own poll between two jobs reads 1 then 0: only a higher reading counts.
    progress = 0.5;
    slow.open();
    const finished = await generations.finished(created.id);
    expect(finished).toMatchObject({ status: 3, nbImages: 4 });
    expect(finished.progress).toBeUndefined();
    const recorded = await engine.api.resources.database.prisma.generation.findUniqueOrThrow({
      where: { id: created.id },
    });
    expect(recorded.progress).toBe(75);
    expect(engine.fake.requestsTo("GET", PROGRESS_PATH)[0]?.headers.authorization).toMatch(/^Basic /);
    // Progress is not an event: print.progress still tells of one more image each.
    expect(await generations.events(created.id)).toEqual(COMPLETED_LIFECYCLE);
  });

  it("ends in Error, not tried again, when the server refuses the request", async () => {
    engine.fake.queue("POST", TXT2IMG_PATH, {
      status: 422,
      json: { detail: [{ loc: ["body", "sampler_name"], msg: "sampler not found" }] },
    });
    const { finished, requests } = await run();
    expect(finished).toMatchObject({
      status: 4,
      failureReason:
        "the image engine (sdwebui) refused the request (HTTP 422 Unprocessable Entity): sampler not found",
      engine: { name: "sdwebui", model: "sd_xl_base_1.0" },
    });
    expect(requests).toHaveLength(1);
  });

  it("ends in Error on refused credentials", async () => {
    engine.fake.queue("POST", TXT2IMG_PATH, {
      status: 401,
      json: { detail: "Incorrect username or password" },
    });
    const { finished } = await run();
    expect(finished.failureReason).toBe(
      "the image engine (sdwebui) refused imagehub's credentials (HTTP 401 Unauthorized)",
    );
  });

  it("waits out a 429 (a queue in front of the server), then draws", async () => {
    engine.fake.queue("POST", TXT2IMG_PATH, {
      status: 429,
      headers: { "retry-after": "0" },
      json: { detail: "queue full" },
    });
    const { finished, requests } = await run();
    expect(finished).toMatchObject({ status: 3, nbImages: 4 });
    expect(requests).toHaveLength(2);
  });

  it("ends in Error after a storm of 500s (out of GPU memory), having tried 3 times", async () => {
    const outOfMemory: FakeAnswer = {
      status: 500,
      json: { error: "OutOfMemoryError", detail: "", body: "", errors: "CUDA out of memory." },
    };
    engine.fake.queue("POST", TXT2IMG_PATH, outOfMemory, outOfMemory, outOfMemory);
    const { finished, requests } = await run();
    expect(finished).toMatchObject({
      status: 4,
      failureReason:
        "the image engine (sdwebui) failed 3 times in a row; last: HTTP 500 Internal Server Error",
    });
    expect(requests).toHaveLength(3);
  });

  it("ends in Error when the server does not answer in time, having tried 3 times", async () => {
    engine.fake.queue("POST", TXT2IMG_PATH, HANG, HANG, HANG);
    const { finished, requests } = await run();
    expect(finished.failureReason).toBe(
      "the image engine (sdwebui) failed 3 times in a row; last: no answer within 2 s",
    );
    expect(requests).toHaveLength(3);
  });

  it("ends in Error on an answer without the 4 images", async () => {
    engine.fake.queue("POST", TXT2IMG_PATH, { json: { images: ["aGVsbG8="], parameters: {}, info: "{}" } });
    const { finished, requests } = await run();
    expect(finished.failureReason).toBe(
      "the image engine (sdwebui) answered something unreadable: images: expected 4 images",
    );
    expect(requests).toHaveLength(1);
  });

  const fromImage = (path: string) => ({
    ...FOX,
    params: [...FOX.params, { name: "fromImageUrl", value: `${pictures.url}${path}` }],
  });

  it("sends an image prompt as img2img's init image, cropped and resized to the size asked for, partly redrawn", async () => {
    const before = engine.fake.requests.length;
    const { finished, generations } = await runGeneration(engine.api, engine.fake, fromImage("/blue.png"));
    const requests = engine.fake.requests.slice(before);
    expect(finished).toMatchObject({ status: 3, nbImages: 4 });
    expect(requests.filter((request) => request.path === TXT2IMG_PATH)).toEqual([]);
    const [img2img] = requests.filter((request) => request.path === IMG2IMG_PATH);
    const body = img2img?.body as { init_images: string[] };
    expect(body).toMatchObject({
      prompt: "a red fox in the snow, high quality realistic photo",
      batch_size: 4,
      width: 1024,
      height: 576,
      denoising_strength: 0.6,
      resize_mode: 1,
    });
    expect(await meanColour(Buffer.from(body.init_images[0] ?? "", "base64"))).toEqual(BLUE);
    // Drawn from the init image: the fake answers in its colour.
    const colours = await Promise.all((await generations.files(finished)).map((bytes) => meanColour(bytes)));
    for (const colour of colours) expect(colour.b).toBeGreaterThan(colour.r);
  });

  it("ends in Error, not tried again, when the server finds no init image (404)", async () => {
    engine.fake.queue("POST", IMG2IMG_PATH, { status: 404, json: { detail: "Init image not found" } });
    const before = engine.fake.requestsTo("POST", IMG2IMG_PATH).length;
    const { finished } = await runGeneration(engine.api, engine.fake, fromImage("/blue.png"));
    expect(finished.failureReason).toBe(
      "the image engine (sdwebui) refused the request (HTTP 404 Not Found): Init image not found",
    );
    expect(engine.fake.requestsTo("POST", IMG2IMG_PATH).length - before).toBe(1);
  });

  it("never sends an image prompt that is not a picture: the generation fails naming it", async () => {
    const before = engine.fake.requests.length;
    const { finished } = await runGeneration(engine.api, engine.fake, fromImage("/broken.png"));
    expect(finished).toMatchObject({
      status: 4,
      failureReason: `the image prompt was refused: ${pictures.url}/broken.png is not a PNG, JPEG or WebP picture`,
    });
    expect(engine.fake.requests.slice(before)).toEqual([]);
  });
});
