import type { Database } from "@imagehub/db";
import type { INestApplicationContext } from "@nestjs/common";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { COMPLETED_LIFECYCLE } from "../../../tests/support/generation-events.js";
import { type JsonBody, readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { createWorkerContext, type OpenResources, openResources } from "../src/app.factory.js";
import type { GenerationsConfig } from "../src/common/config.js";
import { DATABASE } from "../src/common/core.module.js";
import { runGenerationJob } from "../src/generations/generation.jobs.js";
import { generationView } from "../src/generations/generation.view.js";
import { GenerationRunnerService } from "../src/generations/generation-runner.service.js";
import { GenerationRunsRepository } from "../src/generations/generation-runs.repository.js";
import { JobRepository } from "../src/jobs/job.repository.js";
import { client, fox } from "./generations.support.js";

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
    const view = generationView(api.resources.config.http.publicBaseUrl);
    const claimed = await api.app.get(GenerationRunsRepository).claim(pending.id, 1, "a-worker", view);
    expect(claimed.isHeld).toBe(true);
    await editWhile("Processing");
    expect((await prisma().generation.findUniqueOrThrow({ where: { id: pending.id } })).name).toBe(fox.name);

    expect(await credit(apiKey, "f_images_print")).toBe(2);
    const deleted = await send("DELETE", "/v1/image-generations", apiKey, { printIds: [pending.id] });
    expect(deleted.status).toBe(200);
    expect(await credit(apiKey, "f_images_print")).toBe(3);
  });

  it("starts a generation from the copy its job carries, in one statement, and from its row once the copy is stale", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images_print: 2 } });
    const view = generationView(api.resources.config.http.publicBaseUrl);
    const runs = api.app.get(GenerationRunsRepository);
    const queue = api.app.get(JobRepository).queue(runGenerationJob);
    const copyOf = async (id: string) =>
      runGenerationJob.payload.parse((await queue.getJob(`generation-${id}-1`))?.data).queued;
    const statements = vi.spyOn(api.app.get<Database>(DATABASE), "query");
    try {
      const generation = await create(apiKey);
      const copy = await copyOf(generation.id);
      expect(copy).toMatchObject({ id: generation.id, attempt: 1, status: 1, name: fox.name, images: [] });
      statements.mockClear();
      const started = await runs.claim(generation.id, 1, "first-worker", view, copy);
      expect(started).toMatchObject({ isHeld: true, value: { status: 2, workerToken: "first-worker" } });
      expect(statements).toHaveBeenCalledTimes(1);
      expect((await events(generation.id)).map((event) => event.type)).toEqual([
        "print.created",
        "print.active",
      ]);

      // The job run again after its worker died: its copy still says Pending, the row hands it over.
      const takenOver = await runs.claim(generation.id, 1, "second-worker", view, copy);
      expect(takenOver).toMatchObject({ isHeld: true, value: { status: 2, workerToken: "second-worker" } });
      const row = await prisma().generation.findUniqueOrThrow({ where: { id: generation.id } });
      expect(row).toMatchObject({ status: 2, workerToken: "second-worker" });

      // Deleted while it waited: nothing starts.
      const deleted = await create(apiKey);
      const deletedCopy = await copyOf(deleted.id);
      expect((await send("DELETE", "/v1/image-generations", apiKey, { printIds: [deleted.id] })).status).toBe(
        200,
      );
      expect(await runs.claim(deleted.id, 1, "a-worker", view, deletedCopy)).toEqual({ isHeld: false });
    } finally {
      statements.mockRestore();
    }
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
