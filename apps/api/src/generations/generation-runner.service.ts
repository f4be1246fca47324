import { createHash, randomUUID } from "node:crypto";
import {
  compileGeneration,
  type EngineRequest,
  type GenerationParam,
  IMAGES_PER_GENERATION,
  type ImageEngineName,
} from "@imagehub/domain";
import { Inject, Injectable, Logger } from "@nestjs/common";
import { DelayedError, type Job } from "bullmq";
import type { z } from "zod";
import { ImagePromptReader } from "../catalogue/image-prompt.reader.js";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import {
  DESCRIPTION_NOT_ACCEPTED,
  type EngineOutput,
  type EngineProgress,
  type ImageEngine,
  ImageEngineError,
  type ImagePrompt,
  isProgress,
} from "../engines/image-engine.js";
import { ImageEngines } from "../engines/image-engines.js";
import { PROMPT_OPTIMIZER, type PromptOptimizer } from "../engines/prompt-optimizer.js";
import { JobRepository } from "../jobs/job.repository.js";
import { OnJob } from "../jobs/on-job.decorator.js";
import { MetricsService } from "../metrics/metrics.service.js";
import { IMAGE_STORAGE, type ImageStorage } from "../storage/image-storage.js";
import { runGenerationJob, sweepGenerationsJob } from "./generation.jobs.js";
import { type GenerationView, type GenerationWithImages, generationView } from "./generation.view.js";
import { type EngineRun, GenerationRunsRepository, type WorkerStep } from "./generation-runs.repository.js";
import { findRefusedTerm } from "./moderation.js";

/** Titles of generated images are the user's description, cut to a title's length. */
const TITLE_MAX_LENGTH = 200;

/**
 * An unfinished generation nobody advanced for this long has its job looked up: a create queues its job
 * right after the commit, and a worker advances a generation with each image. Short, so that a job that
 * ran out of attempts while the database was away is queued again by the first sweep after its return.
 */
const STALE_SECONDS = 3;

/** Progress as recorded: short of 100 until the images are stored. */
const MAX_ENGINE_PERCENT = 99;

/** The engine's failure, told apart from the platform's own (which BullMQ retries). */
class EngineFailure extends Error {}

/**
 * The worker side of generations: takes a generation, checks and compiles its prompt, has the engine draw
 * the 4 images, stores each one as it comes (a progress event each), and ends it Done or in Error.
 */
@Injectable()
export class GenerationRunnerService {
  private readonly logger = new Logger(GenerationRunnerService.name);
  /** How the events of each step show the generation. */
  private readonly view: GenerationView;

  constructor(
    private readonly generations: GenerationRunsRepository,
    private readonly jobs: JobRepository,
    private readonly engines: ImageEngines,
    private readonly imagePrompts: ImagePromptReader,
    @Inject(PROMPT_OPTIMIZER) private readonly optimizer: PromptOptimizer,
    @Inject(IMAGE_STORAGE) private readonly storage: ImageStorage,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.view = generationView(config.http.publicBaseUrl);
  }

  @OnJob(runGenerationJob)
  async run(payload: z.output<typeof runGenerationJob.payload>, job: Job): Promise<void> {
    const engineName = payload.engine ?? this.config.generations.engine;
    // BullMQ's lock token fences this run: once another worker has taken the job over, our steps are refused.
    const token = job.token ?? randomUUID();
    if (!this.engines.takeSlot(engineName)) {
      // Every slot of its engine is taken here: back to the queue for a while, leaving the worker's slot to
      // the generations of other engines.
      await job.moveToDelayed(Date.now() + this.config.generations.engineCalls.pollIntervalMs, token);
      throw new DelayedError();
    }
    try {
      await this.runWith(engineName, payload, token);
    } finally {
      this.engines.release(engineName);
    }
  }

  private async runWith(
    engineName: ImageEngineName,
    { generationId, attempt, queued }: z.output<typeof runGenerationJob.payload>,
    token: string,
  ): Promise<void> {
    const claimed = await this.generations.claim(generationId, attempt, token, this.view, queued);
    if (!claimed.isHeld) return;
    const generation = claimed.value;
    const started = performance.now();
    const finished = (outcome: "done" | "error") =>
      this.metrics.generationFinished(engineName, outcome, (performance.now() - started) / 1000);
    let ran: EngineRun | undefined;
    try {
      const engine = this.engines.get(engineName);
      if (!engine) {
        throw new EngineFailure(`the image engine ${engineName} is not among this server's engines any more`);
      }
      const refused = findRefusedTerm(
        `${generation.additionalPrompt ?? ""} ${generation.prompt}`,
        this.config.generations.refusedTerms,
      );
      if (refused) {
        await this.generations.fail(generationId, token, DESCRIPTION_NOT_ACCEPTED, this.view);
        finished("error");
        return;
      }
      const compiled = await this.compile(generation, token);
      if (!compiled) return;
      ran = { engine: engine.name, engineModel: engine.modelFor(compiled.request) ?? null };
      const imagePrompt = await this.imagePromptFor(engine, compiled.request, generation.accountId);
      const drawn = await this.render(
        engine,
        compiled.generation,
        attempt,
        token,
        compiled,
        imagePrompt,
        ran,
      );
      if (drawn) finished("done");
    } catch (error) {
      if (!(error instanceof EngineFailure)) throw error;
      this.logger.warn(`generation ${generationId} failed: ${error.message}`);
      await this.generations.fail(generationId, token, error.message, this.view, ran);
      finished("error");
    }
  }

  /** The picture of the request's image prompt, for an engine that draws from one. */
  private async imagePromptFor(
    engine: ImageEngine,
    request: EngineRequest,
    accountId: string,
  ): Promise<ImagePrompt | undefined> {
    if (!request.imagePrompt || !engine.takesImagePrompt) return undefined;
    try {
      return await this.imagePrompts.read(request.imagePrompt, accountId);
    } catch (error) {
      if (error instanceof ImageEngineError) throw new EngineFailure(error.message);
      throw error;
    }
  }

  /**
   * Ends the generations past their lifetime, then queues again, under a fresh job id, those whose job is
   * neither waiting nor running: BullMQ keeps a failed job's id, so the same id would be ignored.
   */
  @OnJob(sweepGenerationsJob)
  async sweep({ afterOutage }: z.output<typeof sweepGenerationsJob.payload>): Promise<void> {
    const { maxLifetimeSeconds } = this.config.generations;
    const expired = await this.generations.failExpired(
      maxLifetimeSeconds,
      `the generation could not be finished within ${maxLifetimeSeconds} s; its credit is returned: retry it`,
      this.view,
    );
    if (expired > 0) this.logger.warn(`${expired} generations past their lifetime ended in Error`);
    let requeued = 0;
    for (const stale of await this.generations.listStale(afterOutage ? 0 : STALE_SECONDS)) {
      if (await this.jobs.isQueued(runGenerationJob, stale)) continue;
      const run = await this.generations.nextJobRun(stale);
      if (run === undefined) continue;
      await this.jobs.enqueue(runGenerationJob, { ...stale, run });
      requeued += 1;
    }
    if (requeued > 0) this.logger.warn(`${requeued} generations without a live job queued again`);
  }

  /**
   * The engine request, with the description rewritten first when optimizePrompt asks for it (and the
   * generation with it), and the title of the images: the user's own description.
   */
  private async compile(generation: GenerationWithImages, token: string) {
    const input = {
      mode: generation.mode,
      prompt: generation.prompt,
      params: generation.params as unknown as GenerationParam[],
    };
    const plain = compileGeneration(input);
    let optimized = generation.optimizedPrompt ?? undefined;
    if (generation.optimizePrompt && generation.mode === "simple" && optimized === undefined) {
      optimized = await this.optimizer.optimize({ description: plain.description, request: plain });
      const step = await this.generations.recordOptimizedPrompt(generation.id, token, optimized);
      if (!step.isHeld) return undefined;
    }
    const request = compileGeneration({
      ...input,
      additionalPrompt: generation.additionalPrompt ?? undefined,
      optimizedDescription: optimized,
    });
    return {
      generation: { ...generation, optimizedPrompt: optimized ?? null },
      request,
      title: titleOf(plain.description),
    };
  }

  private async render(
    engine: ImageEngine,
    generation: GenerationWithImages,
    attempt: number,
    token: string,
    { request, title }: { request: EngineRequest; title: string },
    imagePrompt: ImagePrompt | undefined,
    ran: EngineRun,
  ): Promise<boolean> {
    const stop = new AbortController();
    const timeout = AbortSignal.timeout(this.config.generations.engineTimeoutSeconds * 1000);
    const outputs = engine
      .generate(request, { signal: AbortSignal.any([stop.signal, timeout]), imagePrompt })
      [Symbol.asyncIterator]();
    const watch = this.stopWhenDropped(generation.id, token, stop);
    try {
      return await this.store(outputs, generation, attempt, token, title, ran, stop, timeout);
    } finally {
      clearInterval(watch);
    }
  }

  /**
   * Stops the engine once the generation is deleted (or taken over), checked every poll interval: an engine
   * that reports nothing for a while (a queue, a long step) is stopped all the same, and a service that
   * can cancel its run (ComfyUI) frees its GPU.
   */
  private stopWhenDropped(id: string, token: string, stop: AbortController): NodeJS.Timeout {
    const watch = setInterval(() => {
      this.generations.isHeld(id, token).then(
        (isHeld) => {
          if (!isHeld) stop.abort();
        },
        // The database away: the next check, or the next step, tells.
        () => undefined,
      );
    }, this.config.generations.engineCalls.pollIntervalMs);
    watch.unref();
    return watch;
  }

  private async store(
    outputs: AsyncIterator<EngineOutput>,
    generation: GenerationWithImages,
    attempt: number,
    token: string,
    title: string,
    ran: EngineRun,
    stop: AbortController,
    timeout: AbortSignal,
  ): Promise<boolean> {
    // A worker that died after storing some images: the engine draws them again (the same ones when it is
    // deterministic), and they are skipped.
    let stored = generation.images.length;
    let current = generation;
    /**
     * The engine's next output, asked for as soon as an image arrives: the engine draws it while that image
     * is stored and recorded. Its failure is taken where it is awaited, once that image is recorded.
     */
    let ahead: Promise<IteratorResult<EngineOutput>> | undefined;
    for (;;) {
      const next = await (ahead ?? this.nextOutput(outputs, timeout));
      ahead = undefined;
      if (next.done) break;
      const output = next.value;
      if (isProgress(output)) {
        const step = await this.recordProgress(current, token, output);
        if (!step.isHeld) {
          // Deleted (or taken over) while drawing: stop.
          stop.abort();
          return false;
        }
        current = step.value;
        continue;
      }
      if (output.index < generation.images.length) continue;
      ahead = this.nextOutput(outputs, timeout);
      ahead.catch(() => undefined);
      const key = `generations/${generation.id}/${attempt}/${output.index}.jpg`;
      await this.storage.put(key, output.jpeg, "image/jpeg");
      const image = {
        index: output.index,
        titles: { en: title },
        width: output.width,
        height: output.height,
        seed: output.seed,
        original: { key, etag: `"${createHash("sha256").update(output.jpeg).digest("base64url")}"` },
      };
      // The image that completes the set is recorded with Done when the engine ends right after it (one
      // statement and one commit fewer); an engine's failure after it comes once the image is recorded.
      if (stored + 1 === IMAGES_PER_GENERATION) {
        const [after] = await Promise.allSettled([ahead]);
        if (after.status === "fulfilled" && after.value.done && !stop.signal.aborted) {
          const completed = await this.generations.completeWithImage(current, token, image, ran, this.view);
          if (completed.isHeld) return true;
        }
      }
      const step = await this.generations.addImage(current, token, image, this.view);
      if (!step.isHeld) {
        // Deleted (or taken over) while drawing: stop, and leave no file behind.
        stop.abort();
        await this.storage.delete(key);
        return false;
      }
      current = step.value ?? current;
      stored += 1;
    }
    // Deleted (or taken over) while the engine said nothing: it stopped.
    if (stop.signal.aborted) return false;
    if (stored !== IMAGES_PER_GENERATION) {
      throw new EngineFailure(
        `the image engine delivered ${stored} images instead of ${IMAGES_PER_GENERATION}`,
      );
    }
    return (await this.generations.complete(current, token, ran, this.view)).isHeld;
  }

  /** Records the engine's progress when it grew; answers the generation with it. */
  private async recordProgress(
    generation: GenerationWithImages,
    token: string,
    { fraction }: EngineProgress,
  ): Promise<WorkerStep<GenerationWithImages>> {
    const percent = Math.min(Math.floor(fraction * 100), MAX_ENGINE_PERCENT);
    if (percent <= (generation.progress ?? -1)) return { isHeld: true, value: generation };
    const step = await this.generations.recordProgress(generation.id, token, percent);
    return step.isHeld ? { isHeld: true, value: { ...generation, progress: percent } } : step;
  }

  /**
   * The engine's next image or progress; its errors, and its silence past the time limit, are the engine's
   * failures, those it explains (ImageEngineError) in its own words.
   */
  private async nextOutput(outputs: AsyncIterator<EngineOutput>, timeout: AbortSignal) {
    const limit = this.config.generations.engineTimeoutSeconds;
    const timedOut = () => new EngineFailure(`the image engine did not answer within ${limit} s`);
    if (timeout.aborted) throw timedOut();
    let onTimeout = () => {};
    const expiry = new Promise<never>((_, reject) => {
      onTimeout = () => reject(timedOut());
      timeout.addEventListener("abort", onTimeout, { once: true });
    });
    try {
      return await Promise.race([outputs.next(), expiry]);
    } catch (error) {
      if (error instanceof EngineFailure) throw error;
      if (error instanceof ImageEngineError) throw new EngineFailure(error.message);
      throw new EngineFailure(`the image engine failed: ${(error as Error).message}`);
    } finally {
      // Unsettled once the listener is gone: no rejection is left behind for a later timeout.
      timeout.removeEventListener("abort", onTimeout);
    }
  }
}

/** The description cut to a title's length, at a word boundary when there is one. */
function titleOf(description: string): string {
  if (description.length <= TITLE_MAX_LENGTH) return description;
  const cut = description.slice(0, TITLE_MAX_LENGTH - 1);
  const lastSpace = cut.lastIndexOf(" ");
  return `${lastSpace > 0 ? cut.slice(0, lastSpace) : cut}…`;
}
