import type { Prisma, ProcessMode } from "@imagehub/db";
import type {
  CreateImageGenerationRequest,
  DeleteImageGenerationsResponse,
  FindImageGenerationsQuery,
  GenerationParam,
  ImageEngineName,
  ImageGeneration,
  ImageGenerationList,
  UpdateImageGenerationRequest,
} from "@imagehub/domain";
import { Inject, Injectable, Logger } from "@nestjs/common";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { CatalogueRepository } from "../catalogue/catalogue.repository.js";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { Conflict, Forbidden, InvalidRequest, NotEnoughCredits, NotFound } from "../common/domain-errors.js";
import { chooseEngine } from "../engines/engine-choice.js";
import type { HeldKey } from "../idempotency/idempotent-write.js";
import { JobRepository } from "../jobs/job.repository.js";
import { MetricsService } from "../metrics/metrics.service.js";
import { IMAGE_STORAGE, type ImageStorage } from "../storage/image-storage.js";
import { runGenerationJob } from "./generation.jobs.js";
import { creditHold, submitted } from "./generation.state-machine.js";
import { type GenerationView, type GenerationWithImages, generationView } from "./generation.view.js";
import { GenerationsRepository, type RemovedImages } from "./generations.repository.js";

/** The account has as many generations Pending or Processing as it may have at once: nothing was written. */
export class RunningCapReached extends Conflict {
  constructor(cap: number) {
    super(
      `this account already has ${cap} generations Pending or Processing, the most it may have at once; create again when one has finished`,
    );
  }
}

/**
 * The interface side of generations: the rules of a create and a retry (process mode, credit hold, running
 * cap), each change written by the repository with its event and the request's answer, then its job queued.
 * `key`: the request's idempotency key, under which a write records the answer.
 */
@Injectable()
export class GenerationsService {
  private readonly logger = new Logger(GenerationsService.name);
  private readonly view: GenerationView;

  constructor(
    private readonly generations: GenerationsRepository,
    private readonly jobs: JobRepository,
    private readonly catalogue: CatalogueRepository,
    @Inject(IMAGE_STORAGE) private readonly storage: ImageStorage,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.view = generationView(config.http.publicBaseUrl);
  }

  async create(
    caller: Caller,
    request: CreateImageGenerationRequest,
    key?: HeldKey,
  ): Promise<ImageGeneration> {
    const isDedicated = caller.account.plan === "dedicated";
    if (request.processMode && !isDedicated) {
      throw new Forbidden("processMode is available to accounts on the dedicated plan only");
    }
    const params = request.params ?? [];
    const engine = chooseEngine(this.config.generations, {
      mode: request.mode,
      prompt: request.prompt,
      params,
    });
    const { generation, event } = submitted({
      accountId: caller.account.id,
      apiKeyId: caller.apiKey?.id ?? null,
      name: request.name,
      prompt: request.prompt,
      additionalPrompt: request.additionalPrompt ?? null,
      mode: request.mode,
      optimizePrompt: request.optimizePrompt ?? false,
      params,
      tags: request.tags ?? [],
      metaData: (request.metaData ?? {}) as Prisma.InputJsonObject,
      processMode: request.processMode ?? (isDedicated ? await this.fastWhileQuota(caller) : "relax"),
      engine,
    });
    const runningCap = this.runningCapOf(caller);
    const hasRoom = await this.paying(() =>
      this.generations.create(generation, {
        hold: creditHold(generation, caller.actor),
        runningCap,
        event: { type: event, payload: this.view(generation) },
        answer: { key, answerOf: this.view },
      }),
    );
    if (!hasRoom) throw new RunningCapReached(runningCap);
    await this.queue(generation);
    return this.view(generation);
  }

  async get(caller: Caller, id: string): Promise<ImageGeneration> {
    const generation = await this.generations.find(caller.account.id, id);
    if (!generation) throw notFound(id);
    return this.view(generation);
  }

  async find(caller: Caller, query: FindImageGenerationsQuery): Promise<ImageGenerationList> {
    const { total, generations } = await this.generations.list(caller.account.id, query);
    return { filteredResults: total, prints: generations.map(this.view) };
  }

  async update(caller: Caller, id: string, changes: UpdateImageGenerationRequest): Promise<ImageGeneration> {
    const { processMode, metaData, ...fields } = changes;
    if (processMode !== undefined) {
      throw new InvalidRequest(["processMode: is chosen at creation and cannot be changed"]);
    }
    const updated = await this.generations.update(caller.account.id, id, {
      ...fields,
      ...(metaData && { metaData: metaData as Prisma.InputJsonObject }),
    });
    if (!updated) throw notFound(id);
    return this.view(updated);
  }

  async retry(caller: Caller, id: string, key?: HeldKey): Promise<ImageGeneration> {
    const runningCap = this.runningCapOf(caller);
    const retried = await this.paying(() =>
      this.generations.retry(caller.account.id, id, {
        actor: caller.actor,
        runningCap,
        chooseEngine: (current) =>
          chooseEngine(this.config.generations, {
            ...current,
            params: current.params as unknown as GenerationParam[],
          }),
        view: this.view,
        answer: { key, answerOf: this.view },
      }),
    );
    if (!retried) throw notFound(id);
    if (!retried.hasRoom) throw new RunningCapReached(runningCap);
    await this.forget(retried.removed);
    await this.queue(retried.generation);
    return this.view(retried.generation);
  }

  async delete(caller: Caller, ids: string[], key?: HeldKey): Promise<DeleteImageGenerationsResponse> {
    const answerOf = (deleted: string[]): DeleteImageGenerationsResponse => {
      const isDeleted = new Set(deleted);
      return { deleted, notFound: [...new Set(ids)].filter((id) => !isDeleted.has(id)) };
    };
    const { deleted, removed } = await this.generations.delete(caller.account.id, ids, caller.actor, {
      key,
      answerOf,
    });
    await this.forget(removed);
    return answerOf(deleted);
  }

  /**
   * A dedicated account that does not choose: fast while its fast quota has a credit, else relax. Read
   * before the debit locks it: should the last credit go meanwhile, the create is refused (402).
   */
  private async fastWhileQuota(caller: Caller): Promise<ProcessMode> {
    const quota = await this.generations.findFastQuota(caller.account.id);
    return quota && (quota.unlimited || quota.balance > 0) ? "fast" : "relax";
  }

  /**
   * The most generations the account may have Pending or Processing at once (0: no cap), so that one
   * account cannot fill the queue ahead of everyone else: its own limit, else MAX_ACTIVE_GENERATIONS.
   */
  private runningCapOf(caller: Caller): number {
    return caller.limits["active-generations"] ?? this.config.generations.maxActivePerAccount;
  }

  /** Committed already: when Redis is away the generation stays Pending until the sweep queues it. */
  private async queue(generation: GenerationWithImages): Promise<void> {
    // Its credit was held as it was queued (created or retried).
    this.metrics.spent("f_images_print", 1);
    if (generation.processMode === "fast") this.metrics.spent("f_images_print_fast", 1);
    const queued = await this.jobs.enqueueIfReachable(runGenerationJob, [
      {
        generationId: generation.id,
        attempt: generation.attempt,
        processMode: generation.processMode,
        engine: (generation.engine as ImageEngineName | null) ?? undefined,
        queued: generation,
      },
    ]);
    if (!queued) this.logger.warn(`generation ${generation.id} not queued now (Redis away); the sweep will`);
  }

  /** Files go after the commit; one left behind by a failure costs space, never correctness. */
  private async forget({ imageIds, storageKeys }: RemovedImages): Promise<void> {
    this.catalogue.forget(imageIds);
    const results = await Promise.allSettled(storageKeys.map((key) => this.storage.delete(key)));
    for (const result of results) {
      if (result.status === "rejected")
        this.logger.warn(`a generated file was not removed: ${result.reason}`);
    }
  }

  /** A create or retry that holds a credit: a bucket that cannot pay is told in the client's words. */
  private async paying<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof NotEnoughCredits)) throw error;
      const what =
        error.type === "f_images_print_fast"
          ? "the fast generation quota is spent; use processMode relax or wait for its renewal"
          : `no ${error.type} credit left for a generation (${error.balance} left)`;
      throw new NotEnoughCredits(error.type, error.needed, error.balance, what);
    }
  }
}

function notFound(id: string): NotFound {
  return new NotFound(`no generation with id ${id} in this account`);
}
