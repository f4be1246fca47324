import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPLETED_LIFECYCLE } from "../../../tests/support/generation-events.js";
import { jpegSize } from "../../../tests/support/images.js";
import { start, stop } from "../../../tests/support/start-command.mjs";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import type { LocalStorageConfig } from "../src/common/config.js";
import { runGenerationJob } from "../src/generations/generation.jobs.js";
import { JobRepository } from "../src/jobs/job.repository.js";
import { client, storedFiles } from "./generations.support.js";

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
