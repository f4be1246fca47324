import type { CreateImageGenerationRequest } from "@imagehub/domain";
import { GenerationStatus } from "@imagehub/domain";
import { describe, expect, it, vi } from "vitest";
import type { Caller } from "../accounts/api-key-auth.service.js";
import type { CatalogueRepository } from "../catalogue/catalogue.repository.js";
import { Conflict, Forbidden, InvalidRequest, NotEnoughCredits, NotFound } from "../common/domain-errors.js";
import type { JobRepository } from "../jobs/job.repository.js";
import type { MetricsService } from "../metrics/metrics.service.js";
import type { ImageStorage } from "../storage/image-storage.js";
import { toImageGeneration } from "./generation.view.js";
import type { GenerationsRepository } from "./generations.repository.js";
import { GenerationsService, RunningCapReached } from "./generations.service.js";
import {
  generationsConfig,
  heldKey,
  newCaller,
  PUBLIC_BASE_URL,
  queuedGeneration,
} from "./testing/generation-fixtures.js";
import { GenerationWorld } from "./testing/in-memory-generations.js";
import { InMemoryGenerationsRepository } from "./testing/in-memory-generations.repository.js";

const fox: CreateImageGenerationRequest = {
  name: "Fox in the snow",
  prompt: "a red fox in the snow",
  mode: "simple",
  params: [{ name: "format", value: "16:9" }],
};

/** The service on an in-memory world, with its job queue, catalogue, storage and metrics recorded. */
function generationsService(generations: Parameters<typeof generationsConfig>[0] = {}) {
  const world = new GenerationWorld();
  const jobs = { enqueueIfReachable: vi.fn(async (_job: unknown, _payloads: unknown[]) => true) };
  const catalogue = { forget: vi.fn() };
  const storage = { delete: vi.fn(async (_key: string) => {}) };
  const metrics = { spent: vi.fn() };
  const service = new GenerationsService(
    new InMemoryGenerationsRepository(world) as unknown as GenerationsRepository,
    jobs as unknown as JobRepository,
    catalogue as unknown as CatalogueRepository,
    storage as unknown as ImageStorage,
    metrics as unknown as MetricsService,
    generationsConfig(generations),
  );
  return { world, service, jobs, catalogue, storage, metrics };
}

/** The generation failed, with its images: the last bought, each with its file. */
function failedWithImages(world: GenerationWorld, caller: Caller) {
  const generation = queuedGeneration(world, caller);
  const images = [0, 1, 2].map((index) => ({
    id: `image-${index}`,
    titles: {},
    free: false,
    validate: true,
  }));
  for (const image of images)
    world.imageFiles.set(image.id, [`generations/${generation.id}/1/${image.id}.jpg`]);
  world.bought.add("image-2");
  world.release(generation, "system");
  const failed = { ...generation, status: GenerationStatus.Error, creditHeld: false, images };
  world.generations.set(generation.id, failed);
  return failed;
}

describe("GenerationsService.create", () => {
  it("holds one f_images_print credit, records print.created with the generation's view and queues its job", async () => {
    const { world, service, jobs, metrics } = generationsService();
    const caller = newCaller(world, { credits: { f_images_print: 2 } });
    const created = await service.create(caller, fox);
    expect(created).toMatchObject({ name: fox.name, status: GenerationStatus.Pending, processMode: "relax" });
    expect(world.balance(caller.account.id, "f_images_print")).toBe(1);
    expect(world.events).toEqual([
      { accountId: caller.account.id, generationId: created.id, type: "print.created", payload: created },
    ]);
    expect(jobs.enqueueIfReachable.mock.calls[0]?.[1]).toEqual([
      {
        generationId: created.id,
        attempt: 1,
        processMode: "relax",
        engine: "procedural",
        // The worker starts it from this copy, without reading it first.
        queued: world.generations.get(created.id),
      },
    ]);
    expect(metrics.spent.mock.calls).toEqual([["f_images_print", 1]]);
  });

  it("refuses with 402 in the client's words, writing nothing, when no credit is left", async () => {
    const { world, service, jobs } = generationsService();
    const caller = newCaller(world, { credits: { f_images_print: 0 } });
    const refused = service.create(caller, fox);
    await expect(refused).rejects.toThrow(NotEnoughCredits);
    await expect(refused).rejects.toThrow("no f_images_print credit left for a generation (0 left)");
    expect(world.generations.size).toBe(0);
    expect(world.events).toEqual([]);
    expect(jobs.enqueueIfReachable).not.toHaveBeenCalled();
  });

  it("lets only dedicated accounts choose the process mode", async () => {
    const { world, service } = generationsService();
    const refused = service.create(newCaller(world), { ...fox, processMode: "fast" });
    await expect(refused).rejects.toThrow(Forbidden);
    await expect(refused).rejects.toThrow("processMode is available to accounts on the dedicated plan only");
    expect(world.generations.size).toBe(0);
  });

  it("makes a dedicated account's generations fast while its fast quota lasts, then relax", async () => {
    const { world, service } = generationsService();
    const caller = newCaller(world, {
      plan: "dedicated",
      credits: { f_images_print: 5, f_images_print_fast: 1 },
    });
    expect((await service.create(caller, fox)).processMode).toBe("fast");
    expect(world.balance(caller.account.id, "f_images_print_fast")).toBe(0);
    expect((await service.create(caller, fox)).processMode).toBe("relax");
    expect(world.balance(caller.account.id, "f_images_print")).toBe(3);
  });

  it("makes a dedicated account's generations fast on an unlimited quota, relax with none", async () => {
    const { world, service } = generationsService();
    const unlimited = newCaller(world, {
      plan: "dedicated",
      credits: { f_images_print: 1, f_images_print_fast: Infinity },
    });
    expect((await service.create(unlimited, fox)).processMode).toBe("fast");
    const without = newCaller(world, { plan: "dedicated", credits: { f_images_print: 1 } });
    expect((await service.create(without, fox)).processMode).toBe("relax");
  });

  it("tells a dedicated account that asks for fast once its quota is spent", async () => {
    const { world, service } = generationsService();
    const caller = newCaller(world, {
      plan: "dedicated",
      credits: { f_images_print: 5, f_images_print_fast: 0 },
    });
    await expect(service.create(caller, { ...fox, processMode: "fast" })).rejects.toThrow(
      "the fast generation quota is spent; use processMode relax or wait for its renewal",
    );
    expect(world.balance(caller.account.id, "f_images_print")).toBe(5);
  });

  it("refuses a create past the account's own running cap, then the configured one (0: none)", async () => {
    const { world, service } = generationsService({ maxActivePerAccount: 2 });
    const own = newCaller(world, { activeGenerations: 1 });
    await service.create(own, fox);
    const refused = service.create(own, fox);
    await expect(refused).rejects.toThrow(RunningCapReached);
    await expect(refused).rejects.toThrow(Conflict);
    expect(world.balance(own.account.id, "f_images_print")).toBe(4);

    const configured = newCaller(world);
    await service.create(configured, fox);
    await service.create(configured, fox);
    await expect(service.create(configured, fox)).rejects.toThrow("this account already has 2 generations");

    const uncapped = newCaller(world, { activeGenerations: 0 });
    for (let index = 0; index < 3; index += 1) await service.create(uncapped, fox);
  });

  it("records the answer under the request's idempotency key with the write", async () => {
    const { world, service } = generationsService();
    const caller = newCaller(world);
    const created = await service.create(caller, fox, heldKey(caller, "create-1", 201));
    expect(world.answers.get(`${caller.account.id}:create-1`)).toEqual({
      statusCode: 201,
      response: created,
    });
    await service.create(caller, fox);
    expect(world.answers.size).toBe(1);
  });

  it("records no answer when the create is refused", async () => {
    const { world, service } = generationsService();
    const caller = newCaller(world, { credits: {} });
    await expect(service.create(caller, fox, heldKey(caller, "create-1", 201))).rejects.toThrow(
      NotEnoughCredits,
    );
    expect(world.answers.size).toBe(0);
  });
});

describe("GenerationsService.retry", () => {
  it("queues a failed generation's next attempt: its images go but the bought one, a credit is held again", async () => {
    const { world, service, jobs, catalogue, storage } = generationsService();
    const caller = newCaller(world, { credits: { f_images_print: 1 } });
    const failed = failedWithImages(world, caller);
    const retried = await service.retry(caller, failed.id, heldKey(caller, "retry-1", 200));
    expect(retried).toMatchObject({ id: failed.id, status: GenerationStatus.Pending, images: [] });
    expect(world.generations.get(failed.id)).toMatchObject({ attempt: 2, creditHeld: true, jobRun: 0 });
    expect(world.balance(caller.account.id, "f_images_print")).toBe(0);
    expect(world.events.at(-1)).toMatchObject({ type: "print.created", payload: retried });
    expect(world.detached).toEqual(new Set(["image-2"]));
    expect(catalogue.forget).toHaveBeenCalledWith(["image-0", "image-1"]);
    expect(storage.delete.mock.calls.map(([key]) => key)).toEqual([
      `generations/${failed.id}/1/image-0.jpg`,
      `generations/${failed.id}/1/image-1.jpg`,
    ]);
    expect(jobs.enqueueIfReachable.mock.calls[0]?.[1]).toEqual([
      {
        generationId: failed.id,
        attempt: 2,
        processMode: "relax",
        engine: "procedural",
        queued: expect.objectContaining({ id: failed.id, attempt: 2, status: GenerationStatus.Pending }),
      },
    ]);
    expect(world.answers.get(`${caller.account.id}:retry-1`)).toEqual({ statusCode: 200, response: retried });
  });

  it("chooses the engine again from the generation's params", async () => {
    const { world, service } = generationsService();
    const caller = newCaller(world);
    const failed = failedWithImages(world, caller);
    world.generations.set(failed.id, { ...failed, mode: "advanced", prompt: "a fox --v 6.1", params: [] });
    await service.retry(caller, failed.id);
    expect(world.generations.get(failed.id)?.engine).toBe("midjourney");
  });

  it("refuses a generation that is not in Error (409)", async () => {
    const { world, service } = generationsService();
    const caller = newCaller(world);
    const pending = queuedGeneration(world, caller);
    await expect(service.retry(caller, pending.id)).rejects.toThrow(
      "only a generation in Error can be retried; this one is Pending",
    );
  });

  it("writes nothing when the account has no room under its running cap, or no credit", async () => {
    const { world, service } = generationsService();
    const capped = newCaller(world, { activeGenerations: 1 });
    const failed = failedWithImages(world, capped);
    queuedGeneration(world, capped);
    await expect(service.retry(capped, failed.id)).rejects.toThrow(RunningCapReached);
    const poor = newCaller(world, { credits: { f_images_print: 1 } });
    const unpaid = failedWithImages(world, poor);
    world.giveCredits(poor.account.id, "f_images_print", 0);
    await expect(service.retry(poor, unpaid.id)).rejects.toThrow("no f_images_print credit left");
    for (const generation of [failed, unpaid]) {
      expect(world.generations.get(generation.id)).toMatchObject({
        status: GenerationStatus.Error,
        attempt: 1,
      });
      expect(world.generations.get(generation.id)?.images).toHaveLength(3);
    }
    expect(world.detached.size).toBe(0);
  });
});

describe("GenerationsService.delete", () => {
  it("gives back a held credit, keeps bought images and answers the ids that were not the account's", async () => {
    const { world, service, catalogue } = generationsService();
    const caller = newCaller(world, { credits: { f_images_print: 2 } });
    const pending = queuedGeneration(world, caller);
    const failed = failedWithImages(world, caller);
    const stranger = queuedGeneration(world, newCaller(world));
    const ids = [pending.id, failed.id, stranger.id, pending.id];
    const answer = await service.delete(caller, ids, heldKey(caller, "delete-1", 200));
    expect(answer).toEqual({ deleted: [pending.id, failed.id], notFound: [stranger.id] });
    expect(world.balance(caller.account.id, "f_images_print")).toBe(2);
    expect([...world.generations.keys()]).toEqual([stranger.id]);
    expect(world.detached).toEqual(new Set(["image-2"]));
    expect(catalogue.forget).toHaveBeenCalledWith(["image-0", "image-1"]);
    expect(world.answers.get(`${caller.account.id}:delete-1`)).toEqual({ statusCode: 200, response: answer });
  });
});

describe("GenerationsService reads and updates", () => {
  it("answers 404 for another account's generation, or an id that is none", async () => {
    const { world, service } = generationsService();
    const owner = newCaller(world);
    const generation = queuedGeneration(world, owner);
    expect(await service.get(owner, generation.id)).toEqual(toImageGeneration(PUBLIC_BASE_URL, generation));
    const other = newCaller(world);
    await expect(service.get(other, generation.id)).rejects.toThrow(NotFound);
    await expect(service.update(other, generation.id, { name: "mine" })).rejects.toThrow(
      `no generation with id ${generation.id} in this account`,
    );
    await expect(service.retry(other, generation.id)).rejects.toThrow(NotFound);
  });

  it("refuses to change the process mode, and any change while a worker may hold the generation", async () => {
    const { world, service } = generationsService();
    const caller = newCaller(world);
    const pending = queuedGeneration(world, caller);
    await expect(service.update(caller, pending.id, { processMode: "fast" })).rejects.toThrow(InvalidRequest);
    await expect(service.update(caller, pending.id, { name: "renamed" })).rejects.toThrow(
      "a generation cannot be changed while it is Pending; wait until it is Done or in Error",
    );
  });

  it("drops the simple-mode params on a switch to advanced, and optimises a changed prompt again", async () => {
    const { world, service } = generationsService();
    const caller = newCaller(world);
    const failed = failedWithImages(world, caller);
    world.generations.set(failed.id, { ...failed, optimizePrompt: true, optimizedPrompt: "a fox, at dawn" });
    const updated = await service.update(caller, failed.id, { mode: "advanced", prompt: "a fox --ar 16:9" });
    expect(updated).toMatchObject({ mode: "advanced", params: [], optimizePrompt: false });
    expect(updated.optimizedPrompt).toBeUndefined();
  });

  it("lists the account's generations, newest first, filtered and paged", async () => {
    const { world, service } = generationsService();
    const caller = newCaller(world);
    const alpine = await service.create(caller, { ...fox, name: "Alpine lake", tags: ["water"] });
    const dawn = await service.create(caller, { ...fox, name: "Fox at dawn" });
    await service.create(newCaller(world), fox);
    const find = async (query: Partial<Parameters<GenerationsService["find"]>[1]>) =>
      service.find(caller, { sort: "newest", limit: 10, offset: 0, ...query });
    expect((await find({})).prints.map(({ id }) => id).sort()).toEqual([alpine.id, dawn.id].sort());
    expect(await find({ tag: "water" })).toMatchObject({ filteredResults: 1, prints: [{ id: alpine.id }] });
    expect(await find({ name: "FOX", limit: 1 })).toMatchObject({
      filteredResults: 1,
      prints: [{ id: dawn.id }],
    });
  });
});
