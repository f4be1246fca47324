import type { Prisma } from "@imagehub/db";
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
import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
} from "@nestjs/common";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { CatalogueRepository } from "../catalogue/catalogue.repository.js";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { NotEnoughCredits } from "../common/domain-errors.js";
import { chooseEngine } from "../engines/engine-choice.js";
import { JobRepository } from "../jobs/job.repository.js";
import { MetricsService } from "../metrics/metrics.service.js";
import { IMAGE_STORAGE, type ImageStorage } from "../storage/image-storage.js";
import { runGenerationJob } from "./generation.jobs.js";
import { type GenerationWithImages, toImageGeneration } from "./generation.view.js";
import { GenerationsRepository, type RemovedImages } from "./generations.repository.js";

/** The interface side of generations: each change goes through the repository, then its job is queued. */
@Injectable()
export class GenerationsService {
  private readonly logger = new Logger(GenerationsService.name);

  constructor(
    private readonly generations: GenerationsRepository,
    private readonly jobs: JobRepository,
    private readonly catalogue: CatalogueRepository,
    @Inject(IMAGE_STORAGE) private readonly storage: ImageStorage,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(caller: Caller, request: CreateImageGenerationRequest): Promise<ImageGeneration> {
    const isDedicated = caller.account.plan === "dedicated";
    if (request.processMode && !isDedicated) {
      throw new ForbiddenException("processMode is available to accounts on the dedicated plan only");
    }
    const engine = chooseEngine(this.config.generations, {
      mode: request.mode,
      prompt: request.prompt,
      params: request.params ?? [],
    });
    const generation = await this.payingWith(caller, (runningCap) =>
      this.generations.create(
        {
          accountId: caller.account.id,
          apiKeyId: caller.apiKey?.id ?? null,
          name: request.name,
          prompt: request.prompt,
          additionalPrompt: request.additionalPrompt,
          mode: request.mode,
          optimizePrompt: request.optimizePrompt ?? false,
          params: request.params ?? [],
          tags: request.tags ?? [],
          metaData: (request.metaData ?? {}) as Prisma.InputJsonObject,
          processMode: request.processMode ?? (isDedicated ? "fast-while-quota" : "relax"),
          engine,
        },
        caller.actor,
        runningCap,
        (created) => this.view(created),
      ),
    );
    await this.queue(generation);
    return this.view(generation);
  }

  async get(caller: Caller, id: string): Promise<ImageGeneration> {
    return this.view(await this.owned(caller, id));
  }

  async find(caller: Caller, query: FindImageGenerationsQuery): Promise<ImageGenerationList> {
    const { total, generations } = await this.generations.list(caller.account.id, query);
    return { filteredResults: total, prints: generations.map((generation) => this.view(generation)) };
  }

  async update(caller: Caller, id: string, changes: UpdateImageGenerationRequest): Promise<ImageGeneration> {
    const { processMode, metaData, ...fields } = changes;
    if (processMode !== undefined) {
      throw new BadRequestException(["processMode: is chosen at creation and cannot be changed"]);
    }
    const updated = await this.generations.update(caller.account.id, id, {
      ...fields,
      ...(metaData && { metaData: metaData as Prisma.InputJsonObject }),
    });
    if (!updated) throw notFound(id);
    return this.view(updated);
  }

  async retry(caller: Caller, id: string): Promise<ImageGeneration> {
    const retried = await this.payingWith(caller, (runningCap) =>
      this.generations.retry(
        caller.account.id,
        id,
        caller.actor,
        runningCap,
        (current) =>
          chooseEngine(this.config.generations, {
            ...current,
            params: current.params as unknown as GenerationParam[],
          }),
        (queued) => this.view(queued),
      ),
    );
    if (!retried) throw notFound(id);
    await this.forget(retried.removed);
    await this.queue(retried.generation);
    return this.view(retried.generation);
  }

  async delete(caller: Caller, ids: string[]): Promise<DeleteImageGenerationsResponse> {
    const answer = (deleted: string[]): DeleteImageGenerationsResponse => {
      const isDeleted = new Set(deleted);
      return { deleted, notFound: [...new Set(ids)].filter((id) => !isDeleted.has(id)) };
    };
    const { deleted, removed } = await this.generations.delete(caller.account.id, ids, caller.actor, answer);
    await this.forget(removed);
    return answer(deleted);
  }

  private async owned(caller: Caller, id: string): Promise<GenerationWithImages> {
    const generation = await this.generations.find(caller.account.id, id);
    if (!generation) throw notFound(id);
    return generation;
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

  /**
   * Runs a create or retry, which holds a credit, within the account's cap on generations Pending or
   * Processing: MAX_ACTIVE_GENERATIONS or the account's own, so that one account cannot fill the queue
   * ahead of everyone else. The repository reserves the room in the write itself.
   */
  private async payingWith<T>(caller: Caller, work: (runningCap: number) => Promise<T>): Promise<T> {
    const runningCap = caller.limits["active-generations"] ?? this.config.generations.maxActivePerAccount;
    try {
      return await work(runningCap);
    } catch (error) {
      if (!(error instanceof NotEnoughCredits)) throw error;
      const what =
        error.type === "f_images_print_fast"
          ? "the fast generation quota is spent; use processMode relax or wait for its renewal"
          : `no ${error.type} credit left for a generation (${error.balance} left)`;
      throw new HttpException(what, HttpStatus.PAYMENT_REQUIRED);
    }
  }

  private view(generation: GenerationWithImages): ImageGeneration {
    return toImageGeneration(this.config.http.publicBaseUrl, generation);
  }
}

function notFound(id: string): NotFoundException {
  return new NotFoundException(`no generation with id ${id} in this account`);
}
