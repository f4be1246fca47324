import { type EngineRequest, GenerationStatus } from "@imagehub/domain";
import type { Job } from "bullmq";
import { describe, expect, it, vi } from "vitest";
import type { ImagePromptReader } from "../catalogue/image-prompt.reader.js";
import {
  type EngineOutput,
  type GenerateOptions,
  type ImageEngine,
  ImageEngineError,
} from "../engines/image-engine.js";
import type { ImageEngines } from "../engines/image-engines.js";
import type { PromptOptimizer } from "../engines/prompt-optimizer.js";
import type { JobRepository } from "../jobs/job.repository.js";
import type { MetricsService } from "../metrics/metrics.service.js";
import type { ImageStorage } from "../storage/image-storage.js";
import { GenerationRunnerService } from "./generation-runner.service.js";
import type { GenerationRunsRepository } from "./generation-runs.repository.js";
import { generationsConfig, newCaller, queuedGeneration } from "./testing/generation-fixtures.js";
import { InMemoryGenerationRunsRepository } from "./testing/in-memory-generation-runs.repository.js";
import { GenerationWorld } from "./testing/in-memory-generations.js";

const WORKER_TOKEN = "worker-1";

/** An engine that yields `outputs(request, options)`: by default a progress and 4 images. */
function engine(
  outputs: (request: EngineRequest, options: GenerateOptions) => AsyncIterable<EngineOutput> = fourImages,
): ImageEngine {
  return { name: "procedural", takesImagePrompt: false, modelFor: () => "fox-model-1", generate: outputs };
}

async function* fourImages(): AsyncIterable<EngineOutput> {
  yield { fraction: 0.1 };
  for (let index = 0; index < 4; index += 1) yield image(index);
}

function image(index: number) {
  return { index, jpeg: Buffer.from(`jpeg ${index}`), width: 1024, height: 576, seed: 42 };
}

/** The runner on an in-memory world, with `drawing` as the procedural engine and storage in a map. */
function runner(drawing: ImageEngine = engine(), world = new GenerationWorld()) {
  const stored = new Map<string, Buffer>();
  const storage = {
    put: vi.fn(async (key: string, bytes: Buffer) => void stored.set(key, bytes)),
    delete: vi.fn(async (key: string) => void stored.delete(key)),
  };
  const jobs = {
    isQueued: vi.fn(async () => false),
    enqueue: vi.fn(async (_job: unknown, _payload: unknown) => "job"),
  };
  const engines = { takeSlot: () => true, release: () => {}, get: () => drawing };
  const optimizer = {
    optimize: vi.fn(async ({ description }: { description: string }) => `${description}, at dawn`),
  };
  const service = new GenerationRunnerService(
    new InMemoryGenerationRunsRepository(world) as unknown as GenerationRunsRepository,
    jobs as unknown as JobRepository,
    engines as unknown as ImageEngines,
    {} as ImagePromptReader,
    optimizer as PromptOptimizer,
    storage as unknown as ImageStorage,
    { generationFinished: () => {} } as unknown as MetricsService,
    generationsConfig(),
  );
  const run = (generationId: string, attempt = 1) =>
    service.run({ generationId, attempt, processMode: "relax", run: 0, engine: "procedural" }, {
      token: WORKER_TOKEN,
    } as Job);
  return { world, service, run, stored, storage, jobs, optimizer };
}

const typesOf = (world: GenerationWorld) => world.events.map((event) => event.type);

describe("GenerationRunnerService.run", () => {
  it("takes a Pending generation to Done: an event per change, its images stored, its credit spent", async () => {
    const { world, run, stored } = runner();
    const caller = newCaller(world, { credits: { f_images_print: 1 } });
    const generation = queuedGeneration(world, caller);
    await run(generation.id);
    expect(world.generations.get(generation.id)).toMatchObject({
      status: GenerationStatus.Done,
      creditHeld: false,
      workerToken: null,
      engine: "procedural",
      engineModel: "fox-model-1",
      progress: 10,
    });
    expect(typesOf(world)).toEqual([
      "print.active",
      "print.progress",
      "print.progress",
      "print.progress",
      "print.progress",
      "print.completed",
    ]);
    expect(world.events.at(-1)?.payload).toMatchObject({ status: GenerationStatus.Done, nbImages: 4 });
    expect([...stored.keys()]).toEqual(
      [0, 1, 2, 3].map((index) => `generations/${generation.id}/1/${index}.jpg`),
    );
    expect(world.balance(caller.account.id, "f_images_print")).toBe(0);
  });

  it("ends a description with a refused term in Error, its credit back, without asking the engine", async () => {
    const generate = vi.fn(fourImages);
    const { world, run } = runner(engine(generate));
    const caller = newCaller(world, { credits: { f_images_print: 1 } });
    const generation = queuedGeneration(world, caller, { prompt: "a Nude statue" });
    await run(generation.id);
    expect(world.generations.get(generation.id)).toMatchObject({
      status: GenerationStatus.Error,
      failureReason: "description not accepted",
      creditHeld: false,
    });
    expect(typesOf(world)).toEqual(["print.active", "print.failed"]);
    expect(world.balance(caller.account.id, "f_images_print")).toBe(1);
    expect(generate).not.toHaveBeenCalled();
  });

  it("ends in Error in the engine's words when it fails, recording the model that failed", async () => {
    const { world, run } = runner(
      engine(async function* () {
        yield image(0);
        throw new ImageEngineError("the engine refused the key");
      }),
    );
    const caller = newCaller(world, { credits: { f_images_print: 1 } });
    const generation = queuedGeneration(world, caller);
    await run(generation.id);
    expect(world.generations.get(generation.id)).toMatchObject({
      status: GenerationStatus.Error,
      failureReason: "the engine refused the key",
      engineModel: "fox-model-1",
    });
    expect(world.events.at(-1)?.payload).toMatchObject({ status: GenerationStatus.Error, nbImages: 1 });
    expect(world.balance(caller.account.id, "f_images_print")).toBe(1);
  });

  it("keeps the last image, then ends in Error, when the engine fails after it", async () => {
    const { world, run } = runner(
      engine(async function* () {
        for (let index = 0; index < 4; index += 1) yield image(index);
        throw new ImageEngineError("the engine lost its connection");
      }),
    );
    const caller = newCaller(world, { credits: { f_images_print: 1 } });
    const generation = queuedGeneration(world, caller);
    await run(generation.id);
    expect(world.generations.get(generation.id)).toMatchObject({
      status: GenerationStatus.Error,
      failureReason: "the engine lost its connection",
    });
    expect(typesOf(world).slice(-2)).toEqual(["print.progress", "print.failed"]);
    expect(world.events.at(-1)?.payload).toMatchObject({ nbImages: 4 });
    expect(world.balance(caller.account.id, "f_images_print")).toBe(1);
  });

  it("takes the engine's progress after the last image, then ends Done", async () => {
    const { world, run } = runner(
      engine(async function* () {
        for (let index = 0; index < 4; index += 1) yield image(index);
        yield { fraction: 0.99 };
      }),
    );
    const generation = queuedGeneration(world, newCaller(world));
    await run(generation.id);
    expect(world.generations.get(generation.id)).toMatchObject({
      status: GenerationStatus.Done,
      progress: 99,
    });
    expect(typesOf(world).slice(-2)).toEqual(["print.progress", "print.completed"]);
    expect(world.events.at(-1)?.payload).toMatchObject({ nbImages: 4 });
  });

  it("ends in Error when the engine delivers fewer than 4 images", async () => {
    const { world, run } = runner(
      engine(async function* () {
        for (let index = 0; index < 3; index += 1) yield image(index);
      }),
    );
    const generation = queuedGeneration(world, newCaller(world));
    await run(generation.id);
    expect(world.generations.get(generation.id)?.failureReason).toBe(
      "the image engine delivered 3 images instead of 4",
    );
  });

  it("stops, leaving no file behind, once its generation is deleted while drawing", async () => {
    const world = new GenerationWorld();
    const { run, stored, storage } = runner(
      engine(async function* (_, { signal }) {
        yield image(0);
        // Deleted once the first image is recorded, while the second is drawn.
        await vi.waitUntil(() => typesOf(world).includes("print.progress"));
        world.generations.clear();
        if (!signal.aborted) yield image(1);
      }),
      world,
    );
    const generation = queuedGeneration(world, newCaller(world));
    await run(generation.id);
    expect(stored.size).toBe(1);
    expect(storage.delete).toHaveBeenCalledWith(`generations/${generation.id}/1/1.jpg`);
    expect(typesOf(world)).toEqual(["print.active", "print.progress"]);
  });

  it("has the engine draw the next image while it stores and records the one before", async () => {
    const world = new GenerationWorld();
    /** The events recorded when the engine began each image. */
    const recordedAtStart: number[] = [];
    const { run } = runner(
      engine(async function* () {
        for (let index = 0; index < 4; index += 1) {
          recordedAtStart.push(world.events.length);
          yield image(index);
        }
      }),
      world,
    );
    const generation = queuedGeneration(world, newCaller(world));
    await run(generation.id);
    // Each image after the first began before the one before it had its event (print.active is the first).
    expect(recordedAtStart).toEqual([1, 1, 2, 3]);
    expect(world.generations.get(generation.id)?.status).toBe(GenerationStatus.Done);
  });

  it("does nothing for an attempt the generation has moved past", async () => {
    const { world, run } = runner();
    const generation = queuedGeneration(world, newCaller(world));
    world.generations.set(generation.id, { ...generation, attempt: 2 });
    await run(generation.id, 1);
    expect(world.events).toEqual([]);
    expect(world.generations.get(generation.id)?.status).toBe(GenerationStatus.Pending);
  });

  it("optimises the description once, when asked, and keeps it on the generation", async () => {
    const { world, run, optimizer } = runner();
    const generation = queuedGeneration(world, newCaller(world), { optimizePrompt: true });
    await run(generation.id);
    expect(optimizer.optimize).toHaveBeenCalledTimes(1);
    expect(world.generations.get(generation.id)?.optimizedPrompt).toMatch(/, at dawn$/);
    expect(world.events.at(-1)?.payload.optimizedPrompt).toMatch(/, at dawn$/);
  });
});

describe("GenerationRunnerService.sweep", () => {
  it("ends generations past their lifetime in Error, their credit back", async () => {
    const { world, service } = runner();
    const caller = newCaller(world, { credits: { f_images_print: 1 } });
    const generation = queuedGeneration(world, caller);
    world.generations.set(generation.id, { ...generation, queuedAt: new Date(Date.now() - 7200_000) });
    await service.sweep({ afterOutage: false });
    expect(world.generations.get(generation.id)).toMatchObject({
      status: GenerationStatus.Error,
      failureReason: "the generation could not be finished within 3600 s; its credit is returned: retry it",
    });
    expect(typesOf(world)).toEqual(["print.failed"]);
    expect(world.balance(caller.account.id, "f_images_print")).toBe(1);
  });

  it("queues again, under its next run, a stale generation whose job is gone", async () => {
    const { world, service, jobs } = runner();
    const generation = queuedGeneration(world, newCaller(world));
    const lost = { ...generation, updatedAt: new Date(Date.now() - 60_000) };
    world.generations.set(generation.id, lost);
    await service.sweep({ afterOutage: false });
    expect(jobs.enqueue.mock.calls.map(([, payload]) => payload)).toEqual([
      { generationId: generation.id, attempt: 1, processMode: "relax", run: 1, engine: "procedural" },
    ]);
    expect(world.generations.get(generation.id)?.jobRun).toBe(1);
  });

  it("leaves alone a stale generation whose job is still queued", async () => {
    const { world, service, jobs } = runner();
    jobs.isQueued.mockResolvedValue(true);
    const generation = queuedGeneration(world, newCaller(world));
    world.generations.set(generation.id, { ...generation, updatedAt: new Date(Date.now() - 60_000) });
    await service.sweep({ afterOutage: false });
    expect(jobs.isQueued).toHaveBeenCalledTimes(1);
    expect(jobs.enqueue).not.toHaveBeenCalled();
    expect(world.generations.get(generation.id)?.jobRun).toBe(0);
  });
});
