import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  FETCH_PATH,
  GRID_PATH,
  QUARTER,
  SUBMIT_PATH,
  startFakeMidjourney,
  submitAnswer,
  TASK_ID,
  taskAnswer,
} from "../../../tests/support/fake-midjourney.js";
import { BLUE, GREEN, meanColour, RED, YELLOW } from "../../../tests/support/fake-pictures.js";
import { type FakeAnswer, HANG } from "../../../tests/support/fake-service.js";
import { COMPLETED_LIFECYCLE } from "../../../tests/support/generation-events.js";
import { generationsOf, runGeneration, useEngineTestApi } from "../../../tests/support/generation-runs.js";
import { until } from "../../../tests/support/until.js";

const API_SECRET = "mj-proxy-secret-7f3a";

const fox = {
  name: "Fox",
  mode: "advanced",
  prompt: "a red fox in the snow --ar 16:9 --no trees --niji 6",
};

describe("the midjourney engine", () => {
  const engine = useEngineTestApi(startFakeMidjourney, (fakeUrl) => ({
    IMAGE_ENGINE: "midjourney",
    MIDJOURNEY_BASE_URL: fakeUrl,
    MIDJOURNEY_API_SECRET: API_SECRET,
  }));
  const succeeded = () => taskAnswer(engine.fake.url, { status: "SUCCESS" });
  beforeEach(() => {
    engine.fake.clearQueues();
    engine.fake.on("GET", FETCH_PATH, succeeded);
  });

  const run = (body: unknown = fox) => runGeneration(engine.api, engine.fake, body);

  it("submits the compiled command with its secret, polls the task, then fetches the grid", async () => {
    const { finished, requests } = await run();
    expect(finished).toMatchObject({ status: 3, engine: { name: "midjourney", model: "niji 6" } });
    expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      `POST ${SUBMIT_PATH}`,
      `GET ${FETCH_PATH}`,
      `GET ${GRID_PATH}`,
    ]);
    const [submit, fetch] = requests;
    expect(submit?.headers).toMatchObject({
      "mj-api-secret": API_SECRET,
      "content-type": "application/json",
    });
    expect(submit?.body).toEqual({ prompt: "a red fox in the snow --ar 16:9 --no trees --niji 6" });
    expect(fetch?.headers["mj-api-secret"]).toBe(API_SECRET);
  });

  it("compiles a simple-mode generation into the command text", async () => {
    const { requests } = await run({
      name: "Fox",
      mode: "simple",
      prompt: "a red fox",
      params: [
        { name: "format", value: "9:16" },
        { name: "weather", value: "snowy" },
        { name: "chaos", value: "20" },
      ],
    });
    expect(requests[0]?.body).toEqual({
      prompt: "a red fox, high quality realistic photo, in the snow --ar 9:16 --chaos 20",
    });
  });

  it("cuts the grid into its 4 quarters, U1 to U4, stored as JPEGs of the ratio asked for", async () => {
    const { finished, generations } = await run();
    expect(finished).toMatchObject({ status: 3, nbImages: 4 });
    // 1456 × 816 is Midjourney's 16:9, a little wider than 16:9: 6 columns are cropped away.
    expect(QUARTER).toEqual({ width: 1456, height: 816 });
    expect(await generations.sizes(finished)).toEqual(
      Array(4).fill({ format: "jpeg", width: 1450, height: 816 }),
    );
    const colours = await Promise.all((await generations.files(finished)).map((bytes) => meanColour(bytes)));
    const closest = colours.map((colour) =>
      [RED, GREEN, BLUE, YELLOW].findIndex(
        (expected) =>
          Math.abs(expected.r - colour.r) +
            Math.abs(expected.g - colour.g) +
            Math.abs(expected.b - colour.b) <
          30,
      ),
    );
    expect(closest).toEqual([0, 1, 2, 3]);
    expect(await generations.events(finished.id)).toEqual(COMPLETED_LIFECYCLE);
  });

  it("shows the task's percent as progress while Midjourney draws", async () => {
    let task = { status: "SUBMITTED", progress: "0%" };
    engine.fake.on("GET", FETCH_PATH, () => taskAnswer(engine.fake.url, task));
    const { apiKey } = await engine.api.createAccount();
    const generations = generationsOf(engine.api, apiKey);
    const created = await generations.create(fox);
    const progressOf = async () => (await generations.get(created.id)).progress;

    task = { status: "IN_PROGRESS", progress: "10%" };
    await until(async () => (await progressOf()) === 10, { what: "progress 10" });
    task = { status: "IN_PROGRESS", progress: "45%" };
    await until(async () => (await progressOf()) === 45, { what: "progress 45" });
    expect(await generations.get(created.id)).toMatchObject({ status: 2, nbImages: 0 });
    task = { status: "SUCCESS", progress: "100%" };
    const finished = await generations.finished(created.id);
    expect(finished).toMatchObject({ status: 3, nbImages: 4 });
    expect(finished.progress).toBeUndefined();
  });

  it("ends a description the proxy finds a banned word in as not accepted, not tried again", async () => {
    engine.fake.queue("POST", SUBMIT_PATH, {
      json: { code: 24, description: "可能包含敏感词", result: null, properties: { bannedWord: "blood" } },
    });
    const { finished, requests } = await run();
    expect(finished).toMatchObject({ status: 4, failureReason: "description not accepted", images: [] });
    expect(requests).toHaveLength(1);
  });

  it("ends a task Midjourney's moderation stopped as not accepted", async () => {
    engine.fake.queue(
      "GET",
      FETCH_PATH,
      taskAnswer("", { status: "FAILURE", failReason: "Banned prompt detected" }),
    );
    const { finished } = await run();
    expect(finished).toMatchObject({ status: 4, failureReason: "description not accepted" });
  });

  it("ends in Error with Midjourney's reason when a task fails otherwise", async () => {
    engine.fake.queue(
      "GET",
      FETCH_PATH,
      taskAnswer("", { status: "FAILURE", failReason: "Job queue is full" }),
    );
    const { finished } = await run();
    expect(finished.failureReason).toBe("the image engine (midjourney) could not draw it: Job queue is full");
  });

  it("ends in Error on a refused secret", async () => {
    engine.fake.queue("POST", SUBMIT_PATH, { status: 401, json: { code: 401, description: "Unauthorized" } });
    const { finished } = await run();
    expect(finished.failureReason).toBe(
      "the image engine (midjourney) refused imagehub's credentials (HTTP 401 Unauthorized)",
    );
  });

  it("waits out a 429 on submission, then draws", async () => {
    engine.fake.queue("POST", SUBMIT_PATH, { status: 429, headers: { "retry-after": "0" }, json: {} });
    const { finished, requests } = await run();
    expect(finished).toMatchObject({ status: 3, nbImages: 4 });
    expect(requests.filter((request) => request.path === SUBMIT_PATH)).toHaveLength(2);
  });

  it("ends in Error after a storm of 500s while polling, having tried 3 times", async () => {
    const serverError: FakeAnswer = { status: 500, json: { code: 9, description: "internal error" } };
    engine.fake.queue("GET", FETCH_PATH, serverError, serverError, serverError);
    const { finished, requests } = await run();
    expect(finished.failureReason).toBe(
      "the image engine (midjourney) failed 3 times in a row; last: HTTP 500 Internal Server Error",
    );
    expect(requests.filter((request) => request.path === FETCH_PATH)).toHaveLength(3);
  });

  it("ends in Error when the proxy does not answer in time, having tried 3 times", async () => {
    engine.fake.queue("POST", SUBMIT_PATH, HANG, HANG, HANG);
    const { finished } = await run();
    expect(finished.failureReason).toBe(
      "the image engine (midjourney) failed 3 times in a row; last: no answer within 2 s",
    );
  });

  it.each([
    [
      FETCH_PATH,
      { json: { id: TASK_ID, status: "SUCCESS", imageUrl: null } },
      "a finished task without imageUrl",
    ],
    [FETCH_PATH, { json: { id: TASK_ID, status: "DREAMING" } }, "status: Invalid option"],
    [GRID_PATH, { bytes: Buffer.from("not a picture") }, "the grid is not a picture"],
    [SUBMIT_PATH, { json: { code: 1, description: "Submit success" } }, "an accepted task without its id"],
  ])("ends in Error on a malformed answer to %s", async (path, answer, detail) => {
    engine.fake.queue(path === SUBMIT_PATH ? "POST" : "GET", path, answer);
    const { finished } = await run();
    expect(finished.failureReason).toMatch(
      `the image engine (midjourney) answered something unreadable: ${detail}`,
    );
  });

  it("refuses a submission code it does not know, with the proxy's words", async () => {
    engine.fake.queue("POST", SUBMIT_PATH, submitAnswer(23, "queue is full, please try again later"));
    const { finished } = await run();
    expect(finished.failureReason).toBe(
      "the image engine (midjourney) refused the request (code 23): queue is full, please try again later",
    );
  });
});

describe("the midjourney engine on a task that never ends", () => {
  const engine = useEngineTestApi(startFakeMidjourney, (fakeUrl) => ({
    IMAGE_ENGINE: "midjourney",
    MIDJOURNEY_BASE_URL: fakeUrl,
    ENGINE_TIMEOUT_SECONDS: "1",
  }));
  beforeAll(() => {
    engine.fake.on("GET", FETCH_PATH, () =>
      taskAnswer(engine.fake.url, { status: "IN_PROGRESS", progress: "12%" }),
    );
  });

  it("ends in Error at the engine's time limit", async () => {
    const { apiKey } = await engine.api.createAccount();
    const generations = generationsOf(engine.api, apiKey);
    const created = await generations.create(fox);
    expect(await generations.finished(created.id)).toMatchObject({
      status: 4,
      failureReason: "the image engine did not answer within 1 s",
      engine: { name: "midjourney", model: "niji 6" },
    });
    expect(engine.fake.requestsTo("POST", SUBMIT_PATH)[0]?.headers["mj-api-secret"]).toBeUndefined();
  });
});
