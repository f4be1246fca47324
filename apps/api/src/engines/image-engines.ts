import type { ImageEngineName } from "@imagehub/domain";
import type { ImageEngine } from "./image-engine.js";

/**
 * The engines this deployment draws with (IMAGE_ENGINES), each with its own number of generations a worker
 * process draws at once: a slow local GPU does not hold the slots of a hosted engine.
 */
export class ImageEngines {
  private readonly byName: ReadonlyMap<ImageEngineName, ImageEngine>;
  private readonly running = new Map<ImageEngineName, number>();

  constructor(
    engines: ImageEngine[],
    private readonly concurrency: Partial<Record<ImageEngineName, number>>,
  ) {
    this.byName = new Map(engines.map((engine) => [engine.name, engine]));
  }

  /** The engine named, or undefined when this deployment does not run it. */
  get(name: ImageEngineName): ImageEngine | undefined {
    return this.byName.get(name);
  }

  /**
   * Takes one of the engine's slots in this process: false when all are taken (engines without a limit of
   * their own have as many as the worker's generations). Each slot taken is given back with `release`.
   */
  takeSlot(name: ImageEngineName): boolean {
    const limit = this.concurrency[name];
    const running = this.running.get(name) ?? 0;
    if (limit !== undefined && running >= limit) return false;
    this.running.set(name, running + 1);
    return true;
  }

  release(name: ImageEngineName): void {
    this.running.set(name, Math.max((this.running.get(name) ?? 0) - 1, 0));
  }
}
