import { type Database, type Generation, Prisma, type ProcessMode } from "@imagehub/db";
import {
  type GenerationEventType,
  type GenerationParam,
  GenerationStatus,
  type ImageEngineName,
} from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { v7 as uuidv7 } from "uuid";
import {
  assertPaid,
  DEBIT_OUTCOME,
  DEBIT_PAID,
  type Debit,
  type DebitOutcome,
  debit,
  debitSteps,
  refund,
} from "../accounts/credit-ledger.statements.js";
import type { StoredRendition } from "../catalogue/catalogue.repository.js";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { DATABASE, PRISMA, type PrismaClient } from "../common/core.module.js";
import { Conflict } from "../common/domain-errors.js";
import { KeyedTurns } from "../common/keyed-turns.js";
import { isUuid } from "../common/uuid.js";
import { type Answer, answerStep, recordAnswer } from "../idempotency/idempotent-write.js";
import {
  assertEditable,
  assertPromptFits,
  type GenerationTransition,
  transition,
} from "./generation.state-machine.js";
import { type GenerationWithImages, toImageGeneration } from "./generation.view.js";

type Tx = Prisma.TransactionClient;

export interface NewGeneration {
  accountId: string;
  apiKeyId: string | null;
  name: string;
  prompt: string;
  additionalPrompt: string | undefined;
  mode: "simple" | "advanced";
  optimizePrompt: boolean;
  params: GenerationParam[];
  tags: string[];
  metaData: Prisma.InputJsonObject;
  /** "fast-while-quota": fast when the account's fast quota has a credit left, else relax. */
  processMode: ProcessMode | "fast-while-quota";
  /** The engine chosen to draw it (engine-choice.ts). */
  engine: ImageEngineName;
}

export type GenerationChanges = Partial<
  Pick<
    NewGeneration,
    "name" | "prompt" | "additionalPrompt" | "mode" | "optimizePrompt" | "params" | "tags" | "metaData"
  >
>;

export interface GeneratedImageRecord {
  index: number;
  titles: Record<string, string>;
  width: number;
  height: number;
  seed: number;
  original: StoredRendition;
}

export interface GenerationFilter {
  sort: "newest" | "oldest";
  name?: string | undefined;
  tag?: string | undefined;
  status?: number | undefined;
  limit: number;
  offset: number;
}

/**
 * Which engine and model ran a generation: the engine is recorded as it is chosen (created, retried), the
 * model when the generation ends (Done, or Error by the engine).
 */
export interface EngineRun {
  engine: string;
  engineModel: string | null;
}

/** Images a retry or a delete removed, and their files, to remove once the transaction has committed. */
export interface RemovedImages {
  imageIds: string[];
  storageKeys: string[];
}

/** A worker's step, refused when the generation is gone or another worker holds it. */
export type WorkerStep<T> = { isHeld: true; value: T } | { isHeld: false };

/** The account has as many generations Pending or Processing as it may have at once: nothing was written. */
export class RunningCapReached extends Conflict {
  constructor(cap: number) {
    super(
      `this account already has ${cap} generations Pending or Processing, the most it may have at once; create again when one has finished`,
    );
  }
}

const IMAGES = {
  images: {
    select: { id: true, titles: true, free: true, validate: true },
    orderBy: { generationIndex: "asc" },
  },
} as const satisfies Prisma.GenerationInclude;

/** A generations row with the names and types Prisma gives it, for statements on the driver. */
const GENERATION_FIELDS = Prisma.raw(
  `id, account_id AS "accountId", api_key_id AS "apiKeyId", name, prompt, additional_prompt AS "additionalPrompt",
  mode, optimize_prompt AS "optimizePrompt", optimized_prompt AS "optimizedPrompt", params, tags,
  meta_data AS "metaData", process_mode AS "processMode", status, failure_reason AS "failureReason", engine,
  engine_model AS "engineModel", progress, credit_held AS "creditHeld", attempt, worker_token AS "workerToken",
  job_run AS "jobRun", queued_at AS "queuedAt", created_at AS "createdAt", updated_at AS "updatedAt"`,
);

/** The hot path's statements are the same text every time: prepared once per connection. */
const PREPARED = { prepared: true };

/** Statuses in which a generation waits for, or is in the hands of, a worker. */
const UNFINISHED = [GenerationStatus.Pending, GenerationStatus.Processing];

/** Price in f_images credits of a generated image, as of a catalogue image by default. */
const GENERATED_IMAGE_PRICE = 1;

/**
 * Generations, their images, their credit holds and their events. A status changes only through the state
 * machine, written with its outbox event: `applyTransition` in the caller's transaction, or in one
 * statement on the hot paths (`create`, and `workerTransition` for a worker).
 */
@Injectable()
export class GenerationsRepository {
  private readonly runningCountTurns = new KeyedTurns();

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    // A generation's hot path (its create and each worker step) is one statement on the driver itself.
    @Inject(DATABASE) private readonly database: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Records the generation, holds its credit and records its event and `answer` in one statement: a create
   * is the interface's hottest write. NotEnoughCredits when a bucket cannot pay, RunningCapReached when the
   * account has `runningCap` generations Pending or Processing (0: no cap); then nothing was written.
   */
  async create(
    input: NewGeneration,
    actor: string,
    runningCap: number,
    answer: Answer<GenerationWithImages>,
  ): Promise<GenerationWithImages> {
    const now = new Date();
    const { to, event } = transition(GenerationStatus.Create, "submit");
    const generation: GenerationWithImages = {
      id: uuidv7(),
      accountId: input.accountId,
      apiKeyId: input.apiKeyId,
      name: input.name,
      prompt: input.prompt,
      additionalPrompt: input.additionalPrompt ?? null,
      mode: input.mode,
      optimizePrompt: input.optimizePrompt,
      optimizedPrompt: null,
      params: input.params as unknown as Prisma.JsonArray,
      tags: input.tags,
      metaData: input.metaData as Prisma.JsonObject,
      processMode: await this.chooseProcessMode(input),
      status: to,
      failureReason: null,
      engine: input.engine,
      engineModel: null,
      progress: null,
      creditHeld: true,
      attempt: 1,
      workerToken: null,
      jobRun: 0,
      queuedAt: now,
      createdAt: now,
      updatedAt: now,
      images: [],
    };
    const hold = this.creditHold(generation, actor);
    const hasRoom = hasRunningRoom(generation.accountId, runningCap);
    const statement = Prisma.sql`
      WITH ${debitSteps(hold, hasRoom)}, created AS (
        INSERT INTO generations (id, account_id, api_key_id, name, prompt, additional_prompt, mode, optimize_prompt,
          params, tags, meta_data, process_mode, status, engine, credit_held, attempt, queued_at, created_at, updated_at)
        SELECT ${generation.id}::uuid, ${generation.accountId}::uuid, ${generation.apiKeyId}::uuid,
          ${generation.name}, ${generation.prompt}, ${generation.additionalPrompt},
          ${generation.mode}::"GenerationMode", ${generation.optimizePrompt}, ${JSON.stringify(generation.params)}::jsonb,
          ${generation.tags}::text[], ${JSON.stringify(generation.metaData)}::jsonb,
          ${generation.processMode}::"ProcessMode", ${generation.status}, ${generation.engine}, ${generation.creditHeld},
          ${generation.attempt}, ${now}, ${now}, ${now}
        WHERE ${DEBIT_PAID} AND ${hasRoom}
        RETURNING id, account_id
      ), recorded AS (${this.eventStep(Prisma.raw("created"), event, generation)})
      ${answerStep(answer(generation), Prisma.raw("created"))}
      SELECT ${DEBIT_OUTCOME}, ${hasRoom} AS "hasRoom"`;
    const [outcome] =
      runningCap === 0
        ? await this.database.query<DebitOutcome & { hasRoom: boolean }>(statement, PREPARED)
        : await this.countingRunning(generation.accountId, runningCap, (tx) =>
            tx.$queryRaw<(DebitOutcome & { hasRoom: boolean })[]>(statement),
          );
    if (outcome?.hasRoom === false) throw new RunningCapReached(runningCap);
    assertPaid(outcome, hold);
    return generation;
  }

  async find(accountId: string, id: string): Promise<GenerationWithImages | undefined> {
    if (!isUuid(id)) return undefined;
    return (
      (await this.prisma.generation.findFirst({ where: { id, accountId }, include: IMAGES })) ?? undefined
    );
  }

  async list(accountId: string, filter: GenerationFilter) {
    const where: Prisma.GenerationWhereInput = {
      accountId,
      ...(filter.name && { name: { contains: asLikeText(filter.name), mode: "insensitive" } }),
      ...(filter.tag && { tags: { has: filter.tag } }),
      ...(filter.status !== undefined && { status: filter.status }),
    };
    const direction = filter.sort === "oldest" ? "asc" : "desc";
    return this.transaction(async (tx) => ({
      total: await tx.generation.count({ where }),
      generations: await tx.generation.findMany({
        where,
        include: IMAGES,
        orderBy: [{ createdAt: direction }, { id: direction }],
        skip: filter.offset,
        take: filter.limit,
      }),
    }));
  }

  /**
   * Changes the fields given, unless a worker may be running the generation (409). The prompt is checked
   * against the mode it will have; a switch to advanced mode drops the simple-mode params and optimisation.
   */
  update(accountId: string, id: string, changes: GenerationChanges) {
    return this.transaction(async (tx) => {
      const current = await this.lockOwned(tx, accountId, id);
      if (!current) return undefined;
      assertEditable(current.status);
      const mode = changes.mode ?? current.mode;
      assertPromptFits(changes.prompt ?? current.prompt, mode);
      const toAdvanced = mode === "advanced" && current.mode === "simple";
      return tx.generation.update({
        where: { id },
        data: {
          ...changes,
          ...(toAdvanced && { params: [], optimizePrompt: false }),
          ...(changes.params && { params: changes.params as unknown as Prisma.InputJsonArray }),
          // A changed description is optimised again on the next run.
          ...((changes.prompt !== undefined || changes.optimizePrompt !== undefined) && {
            optimizedPrompt: null,
          }),
        },
        include: IMAGES,
      });
    });
  }

  /**
   * Error → Pending: the images of the failed run go, a credit is held again, a new attempt is queued.
   * RunningCapReached when the account has `runningCap` generations Pending or Processing (0: no cap).
   */
  retry(
    accountId: string,
    id: string,
    actor: string,
    runningCap: number,
    chooseEngine: (generation: Generation) => ImageEngineName,
    answer: Answer<GenerationWithImages>,
  ) {
    return this.countingRunning(accountId, runningCap, async (tx) => {
      const current = await this.lockOwned(tx, accountId, id);
      if (!current) return undefined;
      transition(current.status, "retry");
      if (runningCap > 0) {
        const [room] = await tx.$queryRaw<{ hasRoom: boolean }[]>(
          Prisma.sql`SELECT ${hasRunningRoom(accountId, runningCap)} AS "hasRoom"`,
        );
        if (!room?.hasRoom) throw new RunningCapReached(runningCap);
      }
      const removed = await this.removeImages(tx, id);
      const queued = await tx.generation.update({
        where: { id },
        data: {
          attempt: { increment: 1 },
          jobRun: 0,
          queuedAt: new Date(),
          creditHeld: true,
          failureReason: null,
          workerToken: null,
          // Chosen again: its params may have changed since.
          engine: chooseEngine(current),
          engineModel: null,
          progress: null,
        },
      });
      await debit(tx, this.creditHold(queued, actor));
      const generation = await this.applyTransition(tx, { ...queued, images: [] }, "retry");
      await recordAnswer(tx, answer(generation));
      return { generation, removed };
    });
  }

  /**
   * Deletes the account's generations among `ids`, in one transaction; ids of no generation of the account
   * are skipped, as the live service does. A held credit goes back; bought images stay for their buyer.
   * Answers the ids deleted and the images that went.
   */
  delete(
    accountId: string,
    ids: string[],
    actor: string,
    answer: Answer<string[]>,
  ): Promise<{ deleted: string[]; removed: RemovedImages }> {
    return this.transaction(async (tx) => {
      const removed: RemovedImages = { imageIds: [], storageKeys: [] };
      const deleted: string[] = [];
      for (const id of new Set(ids)) {
        const current = await this.lockOwned(tx, accountId, id);
        if (!current) continue;
        if (current.creditHeld) await this.releaseCredits(tx, current, actor);
        const images = await this.removeImages(tx, id);
        removed.imageIds.push(...images.imageIds);
        removed.storageKeys.push(...images.storageKeys);
        await tx.generation.delete({ where: { id } });
        deleted.push(id);
      }
      await recordAnswer(tx, answer(deleted));
      return { deleted, removed };
    });
  }

  /**
   * A worker takes the generation for `attempt`: Pending → Processing, or, when a worker that died had
   * started it, Processing again under the new worker's token. Not held: deleted, retried since or done.
   */
  async claim(id: string, attempt: number, token: string): Promise<WorkerStep<GenerationWithImages>> {
    const [current] = await this.database.query<GenerationWithImages>(
      Prisma.sql`
      SELECT ${GENERATION_FIELDS}, coalesce((
        SELECT json_agg(json_build_object('id', id, 'titles', titles, 'free', free, 'validate', validate)
          ORDER BY generation_index)
        FROM images WHERE generation_id = generations.id), '[]') AS images
      FROM generations WHERE id = ${id}::uuid`,
      PREPARED,
    );
    if (!current || current.attempt !== attempt) return { isHeld: false };
    if (current.status === GenerationStatus.Processing) {
      const { count } = await this.prisma.generation.updateMany({
        where: { id, attempt, status: GenerationStatus.Processing },
        data: { workerToken: token },
      });
      return count > 0 ? { isHeld: true, value: { ...current, workerToken: token } } : { isHeld: false };
    }
    if (current.status !== GenerationStatus.Pending) return { isHeld: false };
    // While Pending a generation cannot change but by retry or delete (a new attempt, or no row): what was
    // read is what the statement below changes, when it changes anything.
    const started = await this.workerTransition(
      current,
      "start",
      Prisma.sql`attempt = ${attempt} AND status = ${GenerationStatus.Pending}`,
      { workerToken: token },
    );
    return started ? { isHeld: true, value: started } : { isHeld: false };
  }

  recordOptimizedPrompt(id: string, token: string, optimizedPrompt: string): Promise<WorkerStep<void>> {
    return this.workerStep(id, token, async (tx) => {
      await tx.generation.update({ where: { id }, data: { optimizedPrompt } });
    });
  }

  /**
   * Records one stored image and its progress event in one statement (four per generation: each round trip
   * counts): the fencing update, the image and the event, all or nothing. An image a previous worker
   * recorded stays as it was, without an event. `generation` is the worker's view: its images so far.
   * Answers the generation with the image added, or undefined when it was already there.
   */
  async addImage(
    generation: GenerationWithImages,
    token: string,
    image: GeneratedImageRecord,
  ): Promise<WorkerStep<GenerationWithImages | undefined>> {
    const added = { id: uuidv7(), titles: image.titles, free: false, validate: true };
    const after = { ...generation, images: [...generation.images, added] };
    // Progress leaves the status as it is: the state machine names the event.
    const { event } = transition(generation.status, "progress");
    const [row] = await this.database.query<{ held: number; added: number }>(
      Prisma.sql`
      WITH fenced AS (
        UPDATE generations SET updated_at = now()
        WHERE id = ${generation.id}::uuid AND worker_token = ${token} AND status = ${GenerationStatus.Processing}
        RETURNING id, account_id
      ), added AS (
        INSERT INTO images (id, source, generation_id, generation_index, owner_account_id, titles, free, validate,
          price, width, height, seed, renditions)
        SELECT ${added.id}::uuid, 'generation', id, ${image.index}, account_id, ${JSON.stringify(image.titles)}::jsonb,
          ${added.free}, ${added.validate}, ${GENERATED_IMAGE_PRICE}, ${image.width}, ${image.height},
          -- Engine seeds are unsigned 32-bit; the column is a signed int4 holding the same bits.
          ${image.seed | 0}, ${JSON.stringify({ original: image.original })}::jsonb
        FROM fenced
        ON CONFLICT (generation_id, generation_index) DO NOTHING
        RETURNING id
      ), recorded AS (
        ${this.eventStep(Prisma.raw("fenced"), event, after, Prisma.sql`EXISTS (SELECT 1 FROM added)`)}
      )
      SELECT (SELECT count(*) FROM fenced)::int AS held, (SELECT count(*) FROM added)::int AS added`,
      PREPARED,
    );
    if (!row?.held) return { isHeld: false };
    return { isHeld: true, value: row.added > 0 ? after : undefined };
  }

  /**
   * Records how far the engine says it is, without an event: `print.progress` tells of one more image, and
   * pollers read the percent from the generation.
   */
  async recordProgress(id: string, token: string, percent: number): Promise<WorkerStep<void>> {
    const { count } = await this.prisma.generation.updateMany({
      where: { id, workerToken: token, status: GenerationStatus.Processing },
      data: { progress: percent },
    });
    return count > 0 ? { isHeld: true, value: undefined } : { isHeld: false };
  }

  /** Whether the worker's token still holds the generation in Processing (not deleted, not taken over). */
  async isHeld(id: string, token: string): Promise<boolean> {
    const count = await this.prisma.generation.count({
      where: { id, workerToken: token, status: GenerationStatus.Processing },
    });
    return count > 0;
  }

  /** `generation` is the worker's view, with every image stored: the event shows them without reading them. */
  async complete(generation: GenerationWithImages, token: string, ran: EngineRun): Promise<WorkerStep<void>> {
    // The held credit is spent: the generation delivered.
    const completed = await this.workerTransition(
      generation,
      "complete",
      Prisma.sql`worker_token = ${token} AND status = ${GenerationStatus.Processing}`,
      { creditHeld: false, workerToken: null, ...ran },
    );
    return completed ? { isHeld: true, value: undefined } : { isHeld: false };
  }

  /** Ends in Error with a reason for people to read; the held credit goes back. `ran`: when the engine failed. */
  fail(id: string, token: string, reason: string, ran?: EngineRun): Promise<WorkerStep<void>> {
    return this.workerStep(id, token, (tx, generation) => this.failLocked(tx, generation, reason, ran));
  }

  /**
   * Generations Pending or Processing that nobody advanced for `olderThanSeconds`, with what their job
   * needs (its current run): the sweep checks that their job is still queued.
   */
  async listStale(olderThanSeconds: number) {
    const rows = await this.prisma.generation.findMany({
      where: { status: { in: UNFINISHED }, updatedAt: { lt: secondsAgo(olderThanSeconds) } },
      select: { id: true, attempt: true, processMode: true, jobRun: true, engine: true },
      orderBy: { updatedAt: "asc" },
      take: 1000,
    });
    return rows.map((row) => ({
      generationId: row.id,
      attempt: row.attempt,
      processMode: row.processMode,
      run: row.jobRun,
      engine: (row.engine as ImageEngineName | null) ?? undefined,
    }));
  }

  /**
   * Takes the next run of the generation's attempt, for a fresh job id, unless the generation moved on
   * meanwhile (finished, retried, or queued again by another sweep). Answers the run, or undefined.
   */
  async nextJobRun(job: { generationId: string; attempt: number; run: number }): Promise<number | undefined> {
    const { count } = await this.prisma.generation.updateMany({
      where: { id: job.generationId, attempt: job.attempt, jobRun: job.run, status: { in: UNFINISHED } },
      data: { jobRun: job.run + 1 },
    });
    return count > 0 ? job.run + 1 : undefined;
  }

  /**
   * Ends in Error the generations still Pending or Processing `lifetimeSeconds` after their attempt was
   * queued, their credit returned. Answers how many.
   */
  async failExpired(lifetimeSeconds: number, reason: string): Promise<number> {
    const expired = await this.prisma.generation.findMany({
      where: { status: { in: UNFINISHED }, queuedAt: { lt: secondsAgo(lifetimeSeconds) } },
      select: { id: true },
      take: 1000,
    });
    let failed = 0;
    for (const { id } of expired) {
      await this.transaction(async (tx) => {
        // Checked again under the lock: a worker may have finished it meanwhile.
        const [locked] = await tx.$queryRaw<{ id: string }[]>`
          SELECT id FROM generations WHERE id = ${id}::uuid AND status IN (${Prisma.join(UNFINISHED)})
            AND queued_at < ${secondsAgo(lifetimeSeconds)} FOR UPDATE`;
        if (!locked) return;
        await this.failLocked(tx, await tx.generation.findUniqueOrThrow({ where: { id } }), reason);
        failed += 1;
      });
    }
    return failed;
  }

  /**
   * Writes a status change together with the event that reports it, in the caller's transaction; `data`
   * goes in the same update.
   */
  private async applyTransition(
    tx: Tx,
    generation: GenerationWithImages,
    name: GenerationTransition,
    data: Prisma.GenerationUpdateInput = {},
  ): Promise<GenerationWithImages> {
    const change = transition(generation.status, name);
    const changed =
      change.to === generation.status && Object.keys(data).length === 0
        ? generation
        : {
            ...(await tx.generation.update({
              where: { id: generation.id },
              data: { ...data, status: change.to },
            })),
            images: generation.images,
          };
    await tx.outboxEvent.create({
      data: {
        accountId: changed.accountId,
        generationId: changed.id,
        type: change.event,
        payload: toImageGeneration(
          this.config.http.publicBaseUrl,
          changed,
        ) as unknown as Prisma.InputJsonObject,
      },
    });
    return changed;
  }

  /**
   * A worker's transition in one statement, the other way a status is written: the change (with `changes`)
   * where `condition` still holds, and its event, all or nothing. The event shows `generation` as changed,
   * built before the statement: a worker's own view is up to date, and each round trip counts. Answers the
   * generation as changed, or undefined when the condition no longer held.
   */
  private async workerTransition(
    generation: GenerationWithImages,
    name: "start" | "complete",
    condition: Prisma.Sql,
    changes: { workerToken: string | null; creditHeld?: boolean } & Partial<EngineRun>,
  ): Promise<GenerationWithImages | undefined> {
    const change = transition(generation.status, name);
    const changed = { ...generation, ...changes, status: change.to };
    const [row] = await this.database.query<{ changed: number }>(
      Prisma.sql`
      WITH changed AS (
        UPDATE generations SET status = ${change.to}, worker_token = ${changed.workerToken},
          credit_held = ${changed.creditHeld}, engine = ${changed.engine}, engine_model = ${changed.engineModel},
          updated_at = now()
        WHERE id = ${generation.id}::uuid AND ${condition}
        RETURNING id, account_id
      ), recorded AS (${this.eventStep(Prisma.raw("changed"), change.event, changed)})
      SELECT count(*)::int AS changed FROM changed`,
      PREPARED,
    );
    return row?.changed ? changed : undefined;
  }

  /**
   * The step of a statement that records `type` about `generation` (as the event shows it), for the row an
   * earlier step (`written`: id, account_id) returned, when `condition` holds too.
   */
  private eventStep(
    written: Prisma.Sql,
    type: GenerationEventType,
    generation: GenerationWithImages,
    condition = Prisma.sql`TRUE`,
  ): Prisma.Sql {
    const payload = toImageGeneration(this.config.http.publicBaseUrl, generation);
    return Prisma.sql`
      INSERT INTO outbox_events (id, account_id, generation_id, type, payload)
      SELECT ${uuidv7()}::uuid, account_id, id, ${type}, ${JSON.stringify(payload)}::jsonb FROM ${written}
      WHERE ${condition}`;
  }

  /**
   * Runs a worker's step only while the worker's token holds the generation in Processing. The update that
   * checks it also locks the row until the step commits, and marks the generation as advanced (updatedAt).
   */
  private workerStep<T>(id: string, token: string, step: (tx: Tx, generation: Generation) => Promise<T>) {
    return this.transaction(async (tx): Promise<WorkerStep<T>> => {
      const generation = await tx.generation
        .update({
          where: { id, workerToken: token, status: GenerationStatus.Processing },
          data: { updatedAt: new Date() },
        })
        .catch((error: unknown) => {
          if (isRecordNotFound(error)) return undefined;
          throw error;
        });
      if (!generation) return { isHeld: false };
      return { isHeld: true, value: await step(tx, generation) };
    });
  }

  private async failLocked(tx: Tx, generation: Generation, reason: string, ran?: EngineRun): Promise<void> {
    if (generation.creditHeld) await this.releaseCredits(tx, generation, "system");
    await this.applyTransition(tx, await this.withImages(tx, generation), "fail", {
      creditHeld: false,
      failureReason: reason,
      workerToken: null,
      ...ran,
    });
  }

  private async withImages(tx: Tx, generation: Generation): Promise<GenerationWithImages> {
    const images = await tx.image.findMany({ where: { generationId: generation.id }, ...IMAGES.images });
    return { ...generation, images };
  }

  private async lockOwned(tx: Tx, accountId: string, id: string): Promise<Generation | undefined> {
    if (!isUuid(id)) return undefined;
    const [locked] = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM generations WHERE id = ${id}::uuid AND account_id = ${accountId}::uuid FOR UPDATE`;
    return locked ? tx.generation.findUniqueOrThrow({ where: { id } }) : undefined;
  }

  /** For a dedicated account without a choice: fast while its fast quota has a credit, else relax. */
  private async chooseProcessMode(input: NewGeneration): Promise<ProcessMode> {
    if (input.processMode !== "fast-while-quota") return input.processMode;
    const quota = await this.prisma.creditBucket.findUnique({
      where: { accountId_type: { accountId: input.accountId, type: "f_images_print_fast" } },
      select: { balance: true, unlimited: true },
    });
    // Read before the debit locks it: should the last credit go meanwhile, the create is refused (402).
    return quota && (quota.unlimited || quota.balance > 0) ? "fast" : "relax";
  }

  /** One f_images_print credit, and one of the fast quota for a fast generation. */
  private creditHold(generation: Generation, actor: string): Debit {
    const types =
      generation.processMode === "fast"
        ? (["f_images_print", "f_images_print_fast"] as const)
        : (["f_images_print"] as const);
    return {
      accountId: generation.accountId,
      types,
      amount: 1,
      reason: "generation",
      reference: generation.id,
      actor,
    };
  }

  private async releaseCredits(tx: Tx, generation: Generation, actor: string): Promise<void> {
    const { types, ...hold } = this.creditHold(generation, actor);
    for (const type of types) await refund(tx, { ...hold, type, reason: "refund" });
  }

  /**
   * The generation's images go, except those somebody bought: they stay, detached, for their buyer.
   * Answers them, with the storage keys of the files to remove once the transaction has committed.
   */
  private async removeImages(tx: Tx, generationId: string): Promise<RemovedImages> {
    const images = await tx.image.findMany({
      where: { generationId },
      select: { id: true, renditions: true, _count: { select: { purchases: true } } },
    });
    const bought = images.filter((image) => image._count.purchases > 0).map((image) => image.id);
    const unsold = images.filter((image) => image._count.purchases === 0);
    if (bought.length > 0) {
      await tx.image.updateMany({
        where: { id: { in: bought } },
        data: { generationId: null, generationIndex: null },
      });
    }
    const imageIds = unsold.map((image) => image.id);
    await tx.image.deleteMany({ where: { id: { in: imageIds } } });
    const storageKeys = unsold.flatMap((image) =>
      Object.values(image.renditions as unknown as Record<string, StoredRendition>).map((file) => file.key),
    );
    return { imageIds, storageKeys };
  }

  /** Every read inside goes through the transaction too (an embedded database has a single connection). */
  private transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(work, { maxWait: 10_000, timeout: 10_000 });
  }

  /**
   * A transaction in which the account's generations Pending or Processing can be counted against
   * `runningCap` (0: no cap, a plain transaction). Its creates and retries take turns in this process
   * before they take a pooled connection: a burst of one account's creates would otherwise fill the pool
   * with connections that only wait for its row lock, and every other account's requests would wait too.
   */
  private countingRunning<T>(
    accountId: string,
    runningCap: number,
    work: (tx: Tx) => Promise<T>,
  ): Promise<T> {
    if (runningCap === 0) return this.transaction(work);
    return this.runningCountTurns.run(accountId, () =>
      this.transaction(async (tx) => {
        await lockRunningCount(tx, accountId);
        return work(tx);
      }),
    );
  }
}

/**
 * Creates and retries of one account take turns (a lock on its row, which foreign keys' shares do not wait
 * for): each counts its generations Pending or Processing in a statement that begins after the one before
 * has committed, so that concurrent creates cannot all see room for one more.
 */
async function lockRunningCount(tx: Tx, accountId: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM accounts WHERE id = ${accountId}::uuid FOR NO KEY UPDATE`;
}

/**
 * Whether the account has room for one more generation Pending or Processing, counted no further than the
 * cap (0: no cap, always room).
 */
function hasRunningRoom(accountId: string, cap: number): Prisma.Sql {
  if (cap === 0) return Prisma.sql`TRUE`;
  return Prisma.sql`((SELECT count(*) FROM (
      SELECT 1 FROM generations
      WHERE account_id = ${accountId}::uuid AND status IN (${GenerationStatus.Pending}, ${GenerationStatus.Processing})
      LIMIT ${cap}
    ) running) < ${cap})`;
}

function secondsAgo(seconds: number): Date {
  return new Date(Date.now() - seconds * 1000);
}

function isRecordNotFound(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2025";
}

/** Prisma's `contains` is a LIKE pattern: `%`, `_` and the backslash that escapes them must match as text. */
function asLikeText(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}
