import { GenerationStatus, type ImageEngineName } from "@imagehub/domain";
import { v7 as uuidv7 } from "uuid";
import { type GenerationTransition, transition } from "../generation.state-machine.js";
import type { GeneratedImageRecord } from "../generation.statements.js";
import type { GenerationView, GenerationWithImages } from "../generation.view.js";
import type { EngineRun, GenerationRunsRepository, WorkerStep } from "../generation-runs.repository.js";
import type { GenerationWorld } from "./in-memory-generations.js";
import type { Public } from "./in-memory-generations.repository.js";

const NOT_HELD = { isHeld: false } as const;

/** GenerationRunsRepository on a GenerationWorld: every step fenced by the worker's token, as the real one. */
export class InMemoryGenerationRunsRepository implements Public<GenerationRunsRepository> {
  constructor(private readonly world: GenerationWorld) {}

  async claim(
    id: string,
    attempt: number,
    token: string,
    view: GenerationView,
  ): Promise<WorkerStep<GenerationWithImages>> {
    const current = this.world.generations.get(id);
    if (!current || current.attempt !== attempt) return NOT_HELD;
    if (current.status === GenerationStatus.Processing) {
      return { isHeld: true, value: this.save({ ...current, workerToken: token }) };
    }
    if (current.status !== GenerationStatus.Pending) return NOT_HELD;
    return { isHeld: true, value: this.apply(current, "start", view, { workerToken: token }) };
  }

  async recordOptimizedPrompt(id: string, token: string, optimizedPrompt: string): Promise<WorkerStep<void>> {
    const held = this.held(id, token);
    if (!held) return NOT_HELD;
    this.save({ ...held, optimizedPrompt });
    return { isHeld: true, value: undefined };
  }

  async addImage(
    generation: GenerationWithImages,
    token: string,
    image: GeneratedImageRecord,
    view: GenerationView,
  ): Promise<WorkerStep<GenerationWithImages | undefined>> {
    const held = this.held(generation.id, token);
    if (!held) return NOT_HELD;
    // An image a previous worker recorded stays as it was, without an event.
    if (held.images.length > image.index) return { isHeld: true, value: undefined };
    const added = { id: uuidv7(), titles: image.titles, free: false, validate: true };
    this.world.imageFiles.set(added.id, [image.original.key]);
    this.save({ ...held, images: [...held.images, added] });
    const after = { ...generation, images: [...generation.images, added] };
    this.world.record(after, { type: transition(held.status, "progress").event, payload: view(after) });
    return { isHeld: true, value: after };
  }

  async recordProgress(id: string, token: string, percent: number): Promise<WorkerStep<void>> {
    const held = this.held(id, token);
    if (!held) return NOT_HELD;
    this.save({ ...held, progress: percent });
    return { isHeld: true, value: undefined };
  }

  async isHeld(id: string, token: string): Promise<boolean> {
    return this.held(id, token) !== undefined;
  }

  async complete(
    generation: GenerationWithImages,
    token: string,
    ran: EngineRun,
    view: GenerationView,
  ): Promise<WorkerStep<void>> {
    if (!this.held(generation.id, token)) return NOT_HELD;
    this.apply(generation, "complete", view, { creditHeld: false, workerToken: null, ...ran });
    return { isHeld: true, value: undefined };
  }

  async completeWithImage(
    generation: GenerationWithImages,
    token: string,
    image: GeneratedImageRecord,
    ran: EngineRun,
    view: GenerationView,
  ): Promise<WorkerStep<void>> {
    const held = this.held(generation.id, token);
    if (!held || held.images.length > image.index) return NOT_HELD;
    const added = await this.addImage(generation, token, image, view);
    if (!added.isHeld || !added.value) return NOT_HELD;
    return this.complete(added.value, token, ran, view);
  }

  async fail(
    id: string,
    token: string,
    reason: string,
    view: GenerationView,
    ran?: EngineRun,
  ): Promise<WorkerStep<void>> {
    const held = this.held(id, token);
    if (!held) return NOT_HELD;
    this.failHeld(held, reason, view, ran);
    return { isHeld: true, value: undefined };
  }

  async listStale(olderThanSeconds: number) {
    const before = Date.now() - olderThanSeconds * 1000;
    return this.unfinished()
      .filter((generation) => generation.updatedAt.getTime() < before)
      .map((generation) => ({
        generationId: generation.id,
        attempt: generation.attempt,
        processMode: generation.processMode,
        run: generation.jobRun,
        engine: (generation.engine as ImageEngineName | null) ?? undefined,
      }));
  }

  async nextJobRun(job: { generationId: string; attempt: number; run: number }) {
    const current = this.world.generations.get(job.generationId);
    const isSameRun = current?.attempt === job.attempt && current.jobRun === job.run;
    if (!current || !isSameRun || !this.unfinished().includes(current)) return undefined;
    this.save({ ...current, jobRun: job.run + 1 });
    return job.run + 1;
  }

  async failExpired(lifetimeSeconds: number, reason: string, view: GenerationView): Promise<number> {
    const before = Date.now() - lifetimeSeconds * 1000;
    const expired = this.unfinished().filter((generation) => generation.queuedAt.getTime() < before);
    for (const generation of expired) this.failHeld(generation, reason, view);
    return expired.length;
  }

  private failHeld(generation: GenerationWithImages, reason: string, view: GenerationView, ran?: EngineRun) {
    if (generation.creditHeld) this.world.release(generation, "system");
    const changes = { creditHeld: false, failureReason: reason, workerToken: null, ...ran };
    this.apply(generation, "fail", view, changes);
  }

  /** Writes the transition and its event, the event showing the generation as changed. */
  private apply(
    generation: GenerationWithImages,
    name: GenerationTransition,
    view: GenerationView,
    changes: Partial<GenerationWithImages>,
  ): GenerationWithImages {
    const change = transition(generation.status, name);
    const changed = this.save({ ...generation, ...changes, status: change.to });
    this.world.record(changed, { type: change.event, payload: view(changed) });
    return changed;
  }

  /** The generation while the worker's token holds it in Processing. */
  private held(id: string, token: string): GenerationWithImages | undefined {
    const current = this.world.generations.get(id);
    const isHeld = current?.workerToken === token && current.status === GenerationStatus.Processing;
    return isHeld ? current : undefined;
  }

  private unfinished(): GenerationWithImages[] {
    return [...this.world.generations.values()].filter(
      (generation) =>
        generation.status === GenerationStatus.Pending || generation.status === GenerationStatus.Processing,
    );
  }

  private save(generation: GenerationWithImages): GenerationWithImages {
    const saved = { ...generation, updatedAt: new Date() };
    this.world.generations.set(generation.id, saved);
    return saved;
  }
}
