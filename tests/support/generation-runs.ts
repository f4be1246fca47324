import { afterAll, beforeAll } from "vitest";
import type { FakeRequest, FakeService } from "./fake-service.js";
import { jpegSize } from "./images.js";
import { type JsonBody, readJson } from "./json.js";
import { startTestApi, type TestApi } from "./test-api.js";
import { until } from "./until.js";

const FINISHED_STATUSES = [3, 4];

/**
 * Engines' service calls at test speed: retries at once (2 of them, 3 attempts in all), a request without
 * its answer after 2 s timed out (the fakes draw their answers in the test's process: on a busy machine half
 * a second timed out good answers), progress asked for every 20 ms.
 */
export const FAST_ENGINE_CALLS = {
  ENGINE_RETRIES: "2",
  ENGINE_RETRY_DELAY_MS: "1",
  ENGINE_REQUEST_TIMEOUT_SECONDS: "2",
  ENGINE_POLL_INTERVAL_MS: "20",
};

/**
 * For a suite: a fake service, and a test API whose engine or optimizer (configured by `env` from the fake's
 * address) calls it at test speed (FAST_ENGINE_CALLS), every line it logs (debug and up) kept for the tests
 * to read. Both start before the suite's tests and stop after them.
 */
export function useEngineTestApi<Fake extends { url: string; stop(): Promise<void> } = FakeService>(
  startFake: () => Promise<Fake>,
  env: (fakeUrl: string) => NodeJS.ProcessEnv,
): { fake: Fake; api: TestApi; logLines: string[] } {
  const suite = { logLines: [] as string[] } as { fake: Fake; api: TestApi; logLines: string[] };
  beforeAll(async () => {
    suite.fake = await startFake();
    suite.api = await startTestApi({
      env: { LOG_LEVEL: "debug", ...FAST_ENGINE_CALLS, ...env(suite.fake.url) },
      logDestination: { write: (line: string) => void suite.logLines.push(line) },
    });
  });
  afterAll(async () => {
    await suite.api?.close();
    await suite.fake?.stop();
  });
  return suite;
}

/** A simple-mode generation in 16:9. */
export const FOX = {
  name: "Fox",
  prompt: "a red fox in the snow",
  mode: "simple",
  params: [{ name: "format", value: "16:9" }],
};

/**
 * A new account's generation of `body`, run to its end, with the requests `fake` received meanwhile (those
 * to `path` only, when given).
 */
export async function runGeneration(
  api: TestApi,
  fake: FakeService,
  body: unknown,
  { path }: { path?: string } = {},
): Promise<{ generations: ReturnType<typeof generationsOf>; finished: JsonBody; requests: FakeRequest[] }> {
  const { apiKey } = await api.createAccount();
  const generations = generationsOf(api, apiKey);
  const before = fake.requests.length;
  const created = await generations.create(body);
  const finished = await generations.finished(created.id);
  const requests = fake.requests.slice(before).filter((request) => !path || request.path === path);
  return { generations, finished, requests };
}

/** One account's generations on a test API: create, read, wait until finished, and look at the images. */
export function generationsOf(api: TestApi, apiKey: string) {
  const get = async (id: string): Promise<JsonBody> =>
    readJson(await api.request(`/v1/image-generations/${id}`, { apiKey }));
  return {
    get,
    async create(body: unknown): Promise<JsonBody> {
      const response = await api.request("/v1/image-generations", { apiKey, method: "POST", json: body });
      if (response.status !== 201)
        throw new Error(`create answered ${response.status}: ${await response.text()}`);
      return readJson(response);
    },
    /** Polls Get until the generation is Done or in Error. */
    async finished(id: string): Promise<JsonBody> {
      let generation: JsonBody;
      await until(
        async () => {
          generation = await get(id);
          return FINISHED_STATUSES.includes(generation.status);
        },
        { what: `generation ${id} to finish` },
      );
      return generation;
    },
    /** The original files of the generation's images, as bytes. */
    async files(generation: JsonBody): Promise<Buffer[]> {
      return Promise.all(
        generation.images.map(async (image: JsonBody) => {
          const response = await api.request(new URL(image.urlFull).pathname, { apiKey });
          if (response.status !== 200) throw new Error(`image ${image.id} answered ${response.status}`);
          return Buffer.from(await response.arrayBuffer());
        }),
      );
    },
    /** Format and size of each of the generation's files. */
    async sizes(generation: JsonBody) {
      return Promise.all((await this.files(generation)).map((bytes) => jpegSize(bytes)));
    },
    /** The types of the generation's outbox events, oldest first. */
    async events(id: string): Promise<string[]> {
      const events = await api.resources.database.prisma.outboxEvent.findMany({
        where: { generationId: id },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      });
      return events.map((event) => event.type);
    },
  };
}
