import type { KeyedAnswer } from "../../idempotency/idempotent-write.js";
import { creditHold, edited, type GenerationChanges, transition } from "../generation.state-machine.js";
import type { GenerationWithImages } from "../generation.view.js";
import type {
  CreateWrite,
  GenerationFilter,
  GenerationsRepository,
  RemovedImages,
  RetryWrite,
} from "../generations.repository.js";
import type { GenerationWorld } from "./in-memory-generations.js";

/** The public face of a class: what a fake of it must offer. */
export type Public<T> = { [Key in keyof T]: T[Key] };

/** GenerationsRepository on a GenerationWorld, with the refusals of the real one. */
export class InMemoryGenerationsRepository implements Public<GenerationsRepository> {
  constructor(private readonly world: GenerationWorld) {}

  async findFastQuota(accountId: string) {
    const bucket = this.world.buckets.get(`${accountId}:f_images_print_fast`);
    return bucket && { ...bucket };
  }

  async create(generation: GenerationWithImages, { hold, runningCap, event, answer }: CreateWrite) {
    return this.world.atomically(() => {
      if (runningCap > 0 && this.world.running(generation.accountId) >= runningCap) return false;
      this.world.debit(hold);
      this.world.generations.set(generation.id, structuredClone(generation));
      this.world.record(generation, event);
      this.world.answer(answer, generation);
      return true;
    });
  }

  async find(accountId: string, id: string) {
    return this.owned(accountId, id);
  }

  async list(accountId: string, filter: GenerationFilter) {
    const matching = [...this.world.generations.values()]
      .filter(
        (generation) =>
          generation.accountId === accountId &&
          (!filter.name || generation.name.toLowerCase().includes(filter.name.toLowerCase())) &&
          (!filter.tag || generation.tags.includes(filter.tag)) &&
          (filter.status === undefined || generation.status === filter.status),
      )
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
    if (filter.sort === "newest") matching.reverse();
    return {
      total: matching.length,
      generations: matching.slice(filter.offset, filter.offset + filter.limit),
    };
  }

  async update(accountId: string, id: string, changes: GenerationChanges) {
    const current = this.owned(accountId, id);
    if (!current) return undefined;
    const updated = {
      ...current,
      ...edited(current, changes),
      updatedAt: new Date(),
    } as GenerationWithImages;
    this.world.generations.set(id, updated);
    return updated;
  }

  async retry(accountId: string, id: string, write: RetryWrite) {
    return this.world.atomically(() => {
      const current = this.owned(accountId, id);
      if (!current) return undefined;
      const { to, event } = transition(current.status, "retry");
      if (write.runningCap > 0 && this.world.running(accountId) >= write.runningCap) {
        return { hasRoom: false as const };
      }
      const removed = this.world.removeImages(current);
      const generation: GenerationWithImages = {
        ...current,
        attempt: current.attempt + 1,
        jobRun: 0,
        queuedAt: new Date(),
        creditHeld: true,
        failureReason: null,
        workerToken: null,
        engine: write.chooseEngine(current),
        engineModel: null,
        progress: null,
        status: to,
        images: [],
      };
      this.world.debit(creditHold(generation, write.actor));
      this.world.generations.set(id, generation);
      this.world.record(generation, { type: event, payload: write.view(generation) });
      this.world.answer(write.answer, generation);
      return { hasRoom: true as const, generation, removed };
    });
  }

  async delete(accountId: string, ids: string[], actor: string, answer: KeyedAnswer<string[]>) {
    const removed: RemovedImages = { imageIds: [], storageKeys: [] };
    const deleted: string[] = [];
    for (const id of new Set(ids)) {
      const current = this.owned(accountId, id);
      if (!current) continue;
      if (current.creditHeld) this.world.release(current, actor);
      const images = this.world.removeImages(current);
      removed.imageIds.push(...images.imageIds);
      removed.storageKeys.push(...images.storageKeys);
      this.world.generations.delete(id);
      deleted.push(id);
    }
    this.world.answer(answer, deleted);
    return { deleted, removed };
  }

  private owned(accountId: string, id: string): GenerationWithImages | undefined {
    const generation = this.world.generations.get(id);
    return generation?.accountId === accountId ? generation : undefined;
  }
}
