import { beforeEach, describe, expect, it } from "vitest";
import {
  EDITS_PATH,
  editsAnswer,
  IMAGES_PATH,
  imagesAnswer,
  openAiError,
  startFakeOpenAi,
} from "../../../tests/support/fake-openai.js";
import { BLUE, meanColour } from "../../../tests/support/fake-pictures.js";
import { gate, HANG, RESET } from "../../../tests/support/fake-service.js";
import { COMPLETED_LIFECYCLE } from "../../../tests/support/generation-events.js";
import {
  FOX,
  generationsOf,
  runGeneration,
  useEngineTestApi,
} from "../../../tests/support/generation-runs.js";
import { usePictureServer } from "../../../tests/support/picture-server.js";
import { until } from "../../../tests/support/until.js";

const API_KEY = "sk-test-e2b7c1a94f6d4b0c8a3f5e7d9c1b2a40";

describe("the openai engine", () => {
  const engine = useEngineTestApi(startFakeOpenAi, (fakeUrl) => ({
    IMAGE_ENGINE: "openai",
    OPENAI_BASE_URL: `${fakeUrl}/v1`,
    OPENAI_API_KEY: API_KEY,
    OPENAI_IMAGE_QUALITY: "low",
    IMAGE_PROMPT_ALLOW_PRIVATE: "true",
  }));
  beforeEach(() => {
    engine.fake.on("POST", IMAGES_PATH, (request) => imagesAnswer(request));
    engine.fake.on("POST", EDITS_PATH, (request) => editsAnswer(request));
  });

  const pictures = usePictureServer();
  const run = (body: unknown = FOX) => runGeneration(engine.api, engine.fake, body, { path: IMAGES_PATH });
  const fromImage = (path: string) => ({
    ...FOX,
    params: [...FOX.params, { name: "fromImageUrl", value: `${pictures.url}${path}` }],
  });

  it("sends POST /v1/images/generations with its bearer key, the model, 4 images, a size and the folded prompt", async () => {
    const { finished, requests } = await run({
      ...FOX,
      params: [
        { name: "format", value: "16:9" },
        { name: "weather", value: "snowy" },
        { name: "interdiction", value: "trees, cars" },
      ],
    });
    expect(finished.status).toBe(3);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.headers).toMatchObject({
      authorization: `Bearer ${API_KEY}`,
      "content-type": "application/json",
    });
    expect(requests[0]?.body).toEqual({
      model: "gpt-image-1",
      prompt:
        "a red fox in the snow, high quality realistic photo, in the snow. Composed for a 16:9 frame, the subject well inside it. Leave out: trees, cars.",
      n: 4,
      size: "1536x1024",
      quality: "low",
    });
  });

  it.each([
    ["16:9", "1536x1024", { width: 1536, height: 864 }],
    ["9:16", "1024x1536", { width: 864, height: 1536 }],
    ["1:1", "1024x1024", { width: 1024, height: 1024 }],
    ["4:5", "1024x1536", { width: 1024, height: 1280 }],
  ])("draws %s at %s and stores 4 JPEGs cropped to it", async (format, size, stored) => {
    const { finished, generations, requests } = await run({
      ...FOX,
      params: [{ name: "format", value: format }],
    });
    expect(requests[0]?.body).toMatchObject({ size });
    expect(finished).toMatchObject({
      status: 3,
      nbImages: 4,
      engine: { name: "openai", model: "gpt-image-1" },
    });
    expect(await generations.sizes(finished)).toEqual(Array(4).fill({ format: "jpeg", ...stored }));
    expect(await generations.events(finished.id)).toEqual(COMPLETED_LIFECYCLE);
  });

  it("turns WebP answers into JPEGs too", async () => {
    engine.fake.on("POST", IMAGES_PATH, (request) => imagesAnswer(request, { format: "webp" }));
    const { finished, generations } = await run();
    expect(await generations.sizes(finished)).toEqual(
      Array(4).fill({ format: "jpeg", width: 1536, height: 864 }),
    );
  });

  it("stays Processing without images while the API draws, then stores the 4 at once", async () => {
    const slow = gate();
    engine.fake.on("POST", IMAGES_PATH, async (request) => {
      await slow.opened;
      return imagesAnswer(request);
    });
    const { apiKey } = await engine.api.createAccount();
    const generations = generationsOf(engine.api, apiKey);
    const created = await generations.create(FOX);
    await until(async () => (await generations.get(created.id)).status === 2, { what: "Processing" });
    expect(await generations.get(created.id)).toMatchObject({ status: 2, nbImages: 0 });
    slow.open();
    expect(await generations.finished(created.id)).toMatchObject({ status: 3, nbImages: 4 });
  });

  it("ends a description the API's safety system refuses in Error, not tried again, its credit back", async () => {
    engine.fake.queue(
      "POST",
      IMAGES_PATH,
      openAiError(400, {
        code: "moderation_blocked",
        type: "image_generation_user_error",
        message: "Your request was rejected as a result of our safety system.",
      }),
    );
    const { finished, requests, generations } = await run();
    expect(finished).toMatchObject({
      status: 4,
      failureReason: "description not accepted",
      images: [],
      engine: { name: "openai", model: "gpt-image-1" },
    });
    expect(requests).toHaveLength(1);
    expect(await generations.events(finished.id)).toEqual(["print.created", "print.active", "print.failed"]);
  });

  it("waits as a 429 asks (Retry-After), then draws", async () => {
    engine.fake.queue(
      "POST",
      IMAGES_PATH,
      openAiError(
        429,
        { code: "rate_limit_exceeded", type: "requests", message: "Rate limit reached for images" },
        { "retry-after": "0" },
      ),
    );
    const { finished, requests } = await run();
    expect(finished).toMatchObject({ status: 3, nbImages: 4 });
    expect(requests).toHaveLength(2);
  });

  it("tries again after a dropped connection, then draws", async () => {
    engine.fake.queue("POST", IMAGES_PATH, RESET);
    const { finished, requests } = await run();
    expect(finished).toMatchObject({ status: 3, nbImages: 4 });
    expect(requests).toHaveLength(2);
  });

  it("ends in Error after a storm of 500s, having tried 3 times", async () => {
    const serverError = openAiError(500, {
      code: null,
      type: "server_error",
      message: "The server had an error",
    });
    engine.fake.queue("POST", IMAGES_PATH, serverError, serverError, serverError);
    const { finished, requests } = await run();
    expect(finished).toMatchObject({
      status: 4,
      failureReason:
        "the image engine (openai) failed 3 times in a row; last: HTTP 500 Internal Server Error",
    });
    expect(requests).toHaveLength(3);
  });

  it("ends in Error when the API does not answer in time, having tried 3 times", async () => {
    engine.fake.queue("POST", IMAGES_PATH, HANG, HANG, HANG);
    const { finished, requests } = await run();
    expect(finished).toMatchObject({
      status: 4,
      failureReason: "the image engine (openai) failed 3 times in a row; last: no answer within 2 s",
    });
    expect(requests).toHaveLength(3);
  });

  it.each([
    [{ json: { created: 1, data: [] } }, "data: expected 4 images"],
    [
      { json: { created: 1, data: Array(4).fill({ b64_json: "bm90IGEgcGljdHVyZQ==" }) } },
      "image 1 is not a picture",
    ],
    [{ bytes: Buffer.from("<html>gateway</html>") }, "not JSON"],
  ])("ends in Error, not tried again, on a malformed answer (%#)", async (answer, detail) => {
    engine.fake.queue("POST", IMAGES_PATH, answer);
    const { finished, requests } = await run();
    expect(finished).toMatchObject({
      status: 4,
      failureReason: `the image engine (openai) answered something unreadable: ${detail}`,
    });
    expect(requests).toHaveLength(1);
  });

  it("ends in Error on a spent quota (a 429 that waiting does not cure)", async () => {
    engine.fake.queue(
      "POST",
      IMAGES_PATH,
      openAiError(429, {
        code: "insufficient_quota",
        type: "insufficient_quota",
        message: "You exceeded your current quota, please check your plan and billing details.",
      }),
    );
    const { finished, requests } = await run();
    expect(finished).toMatchObject({
      status: 4,
      failureReason:
        "the image engine (openai) has no quota left: You exceeded your current quota, please check your plan and billing details.",
    });
    expect(requests).toHaveLength(1);
  });

  it("ends in Error on a refused key, without quoting the API's message, and never writes the key in the log", async () => {
    engine.fake.queue(
      "POST",
      IMAGES_PATH,
      openAiError(401, {
        code: "invalid_api_key",
        type: "invalid_request_error",
        message: `Incorrect API key provided: ${API_KEY.slice(0, 8)}****${API_KEY.slice(-4)}.`,
      }),
    );
    const { finished, requests } = await run();
    expect(finished).toMatchObject({
      status: 4,
      failureReason: "the image engine (openai) refused imagehub's credentials (HTTP 401 Unauthorized)",
    });
    expect(requests).toHaveLength(1);
    expect(engine.logLines.length).toBeGreaterThan(0);
    expect(engine.logLines.filter((line) => line.includes(API_KEY.slice(0, 12)))).toEqual([]);
  });

  it("sends an image prompt to POST /v1/images/edits as its input image, with the same fields, as multipart", async () => {
    const before = engine.fake.requests.length;
    const { finished, generations } = await runGeneration(engine.api, engine.fake, fromImage("/blue.png"));
    const requests = engine.fake.requests.slice(before);
    expect(finished).toMatchObject({ status: 3, nbImages: 4 });
    expect(requests.map((request) => request.path)).toEqual([EDITS_PATH]);
    const [edit] = requests;
    expect(edit?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(edit?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    const form = edit?.form as FormData;
    expect(
      Object.fromEntries(["model", "n", "size", "quality"].map((name) => [name, form.get(name)])),
    ).toEqual({
      model: "gpt-image-1",
      n: "4",
      size: "1536x1024",
      quality: "low",
    });
    expect(form.get("prompt")).toMatch(/^a red fox in the snow/);
    const image = form.get("image") as File;
    expect(image.type).toBe("image/png");
    expect(await meanColour(await image.arrayBuffer())).toEqual(BLUE);
    const colours = await Promise.all((await generations.files(finished)).map((bytes) => meanColour(bytes)));
    for (const colour of colours) expect(colour.b).toBeGreaterThan(colour.r);
  });

  it("ends in Error, not tried again, when the edits endpoint refuses the input image", async () => {
    engine.fake.queue(
      "POST",
      EDITS_PATH,
      openAiError(400, {
        code: "image_too_large",
        type: "invalid_request_error",
        message: "Image file must be less than 50 MB.",
      }),
    );
    const before = engine.fake.requestsTo("POST", EDITS_PATH).length;
    const { finished } = await runGeneration(engine.api, engine.fake, fromImage("/blue.png"));
    expect(finished.failureReason).toBe(
      "the image engine (openai) refused the request (HTTP 400 Bad Request): Image file must be less than 50 MB.",
    );
    expect(engine.fake.requestsTo("POST", EDITS_PATH).length - before).toBe(1);
  });
});

describe("the openai engine with a model that takes no image prompt", () => {
  const engine = useEngineTestApi(startFakeOpenAi, (fakeUrl) => ({
    IMAGE_ENGINE: "openai",
    OPENAI_BASE_URL: `${fakeUrl}/v1`,
    OPENAI_API_KEY: API_KEY,
    OPENAI_IMAGE_MODEL: "dall-e-3",
    IMAGE_PROMPT_ALLOW_PRIVATE: "true",
  }));
  const pictures = usePictureServer();

  it("ends a generation with an image prompt in Error saying so, rather than drawing without it", async () => {
    const { finished, requests } = await runGeneration(engine.api, engine.fake, {
      ...FOX,
      params: [...FOX.params, { name: "fromImageUrl", value: `${pictures.url}/blue.png` }],
    });
    expect(finished).toMatchObject({
      status: 4,
      failureReason: "the image engine (openai) model dall-e-3 takes no image prompt",
    });
    expect(requests).toEqual([]);
  });
});
