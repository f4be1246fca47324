import { type Database, type Generation, Prisma } from "@imagehub/db";
import { GenerationStatus, type ImageEngineName } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { v7 as uuidv7 } from "uuid";
import { DATABASE, PRISMA, type PrismaClient } from "../common/core.module.js";
import { transition } from "./generation.state-machine.js";
import type { GeneratedImageRecord, WorkerChanges } from "./generation.statements.js";
import * as statements from "./generation.statements.js";
import type { GenerationView, GenerationWithImages } from "./generation.view.js";
import {
  applyTransition,
  IMAGES,
  inTransaction,
  PREPARED,
  releaseCredits,
  type Tx,
} from "./generation-transactions.js";

/**
 * Which engine and model ran a generation: the engine is recorded as it is chosen (created, retried), the
 * model when the generation ends (Done, or Error by the engine).
 */
export interface EngineRun {
  engine: string;
  engineModel: string | null;
}

/** A worker's step, refused when the generation is gone or another worker holds it. */
export type WorkerStep<T> = { isHeld: true; value: T } | { isHeld: false };

/**
 * The worker's side of generations: each step of a run, fenced by the worker's token, and the sweep's.
 * Every step that changes a status records its event as `view` shows the generation.
 */
@Injectable()
export class GenerationRunsRepository {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    // Each worker step on the hot path is one statement on the driver itself.
    @Inject(DATABASE) private readonly database: Database,
  ) {}

  /**
   * A worker takes the generation for `attempt`: Pending → Processing, or, when a worker that died had
   * started it, Processing again under the new worker's token. Not held: deleted, retried since or done.
   * `queued`: the generation as it was queued, Pending, which is started without reading it first.
   */
  async claim(
    id: string,
    attempt: number,
    token: string,
    view: GenerationView,
    queued?: GenerationWithImages,
  ): Promise<WorkerStep<GenerationWithImages>> {
    if (queued?.id === id && queued.attempt === attempt && queued.status === GenerationStatus.Pending) {
      const started = await this.start(queued, token, view);
      // Not started: already Processing under a worker that died, or gone; the row tells.
      if (started.isHeld) return started;
    }
    const [current] = await this.database.query<GenerationWithImages>(
      statements.selectWithImages(id),
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
    return this.start(current, token, view);
  }

  /**
   * Pending → Processing under `token`. While Pending a generation cannot change but by retry or delete (a
   * new attempt, or no row): `pending` is what the statement changes, when it changes anything.
   */
  private start(
    pending: GenerationWithImages,
    token: string,
    view: GenerationView,
  ): Promise<WorkerStep<GenerationWithImages>> {
    const condition = statements.isPending(pending.attempt);
    return this.workerTransition(pending, "start", condition, { workerToken: token }, view);
  }

  recordOptimizedPrompt(id: string, token: string, optimizedPrompt: string): Promise<WorkerStep<void>> {
    return this.workerStep(id, token, async (tx) => {
      await tx.generation.update({ where: { id }, data: { optimizedPrompt } });
    });
  }

  /**
   * Records one stored image and its progress event in one statement (four per generation: each round trip
   * counts). `generation` is the worker's view: its images so far. Answers the generation with the image
   * added, or undefined when a previous worker had recorded it.
   */
  async addImage(
    generation: GenerationWithImages,
    token: string,
    image: GeneratedImageRecord,
    view: GenerationView,
  ): Promise<WorkerStep<GenerationWithImages | undefined>> {
    const added = { id: uuidv7(), titles: image.titles, free: false, validate: true };
    const after = { ...generation, images: [...generation.images, added] };
    // Progress leaves the status as it is: the state machine names the event.
    const { event } = transition(generation.status, "progress");
    const [row] = await this.database.query<{ held: number; added: number }>(
      statements.addImage(
        generation.id,
        token,
        { ...image, ...added },
        { type: event, payload: view(after) },
      ),
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

  /**
   * Done, the held credit spent: the generation delivered. `generation` is the worker's view, with every
   * image stored: the event shows them without reading them.
   */
  async complete(
    generation: GenerationWithImages,
    token: string,
    ran: EngineRun,
    view: GenerationView,
  ): Promise<WorkerStep<void>> {
    const changes = { creditHeld: false, workerToken: null, ...ran };
    const held = statements.isHeldBy(token);
    const completed = await this.workerTransition(generation, "complete", held, changes, view);
    return completed.isHeld ? { isHeld: true, value: undefined } : completed;
  }

  /**
   * The image that completes the set and Done in one statement: `addImage` then `complete`, written
   * together. Not held when the token no longer holds the generation or a previous worker recorded that
   * image: nothing is written, and the steps one by one tell which.
   */
  async completeWithImage(
    generation: GenerationWithImages,
    token: string,
    image: GeneratedImageRecord,
    ran: EngineRun,
    view: GenerationView,
  ): Promise<WorkerStep<void>> {
    const added = { id: uuidv7(), titles: image.titles, free: false, validate: true };
    const withImage = { ...generation, images: [...generation.images, added] };
    const progress = { type: transition(generation.status, "progress").event, payload: view(withImage) };
    const change = transition(generation.status, "complete");
    const changes = { creditHeld: false, workerToken: null, ...ran, status: change.to };
    const done = { type: change.event, payload: view({ ...withImage, ...changes }) };
    const [row] = await this.database.query<{ changed: number }>(
      statements.completeWithImage(generation.id, token, { ...image, ...added }, changes, { progress, done }),
      PREPARED,
    );
    return row?.changed ? { isHeld: true, value: undefined } : { isHeld: false };
  }

  /** Ends in Error with a reason for people to read; the held credit goes back. `ran`: when the engine failed. */
  fail(
    id: string,
    token: string,
    reason: string,
    view: GenerationView,
    ran?: EngineRun,
  ): Promise<WorkerStep<void>> {
    return this.workerStep(id, token, (tx, generation) => failLocked(tx, generation, reason, view, ran));
  }

  /**
   * Generations Pending or Processing that nobody advanced for `olderThanSeconds`, with what their job
   * needs (its current run): the sweep checks that their job is still queued.
   */
  async listStale(olderThanSeconds: number) {
    const rows = await this.prisma.generation.findMany({
      where: { status: { in: statements.UNFINISHED }, updatedAt: { lt: secondsAgo(olderThanSeconds) } },
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
      where: {
        id: job.generationId,
        attempt: job.attempt,
        jobRun: job.run,
        status: { in: statements.UNFINISHED },
      },
      data: { jobRun: job.run + 1 },
    });
    return count > 0 ? job.run + 1 : undefined;
  }

  /**
   * Ends in Error the generations still Pending or Processing `lifetimeSeconds` after their attempt was
   * queued, their credit returned. Answers how many.
   */
  async failExpired(lifetimeSeconds: number, reason: string, view: GenerationView): Promise<number> {
    const expired = await this.prisma.generation.findMany({
      where: { status: { in: statements.UNFINISHED }, queuedAt: { lt: secondsAgo(lifetimeSeconds) } },
      select: { id: true },
      take: 1000,
    });
    let failed = 0;
    for (const { id } of expired) {
      await inTransaction(this.prisma, async (tx) => {
        // Checked again under the lock: a worker may have finished it meanwhile.
        const [locked] = await tx.$queryRaw<unknown[]>(
          statements.lockExpired(id, secondsAgo(lifetimeSeconds)),
        );
        if (!locked) return;
        await failLocked(tx, await tx.generation.findUniqueOrThrow({ where: { id } }), reason, view);
        failed += 1;
      });
    }
    return failed;
  }

  /**
   * A worker's transition in one statement, where `condition` still holds. The event shows `generation`
   * as changed, built before the statement: a worker's own view is up to date, and each round trip counts.
   */
  private async workerTransition(
    generation: GenerationWithImages,
    name: "start" | "complete",
    condition: Prisma.Sql,
    changes: Partial<WorkerChanges>,
    view: GenerationView,
  ): Promise<WorkerStep<GenerationWithImages>> {
    const change = transition(generation.status, name);
    const changed = { ...generation, ...changes, status: change.to };
    const event = { type: change.event, payload: view(changed) };
    const [row] = await this.database.query<{ changed: number }>(
      statements.workerTransition(generation.id, condition, changed, event),
      PREPARED,
    );
    return row?.changed ? { isHeld: true, value: changed } : { isHeld: false };
  }

  /**
   * Runs a worker's step only while the worker's token holds the generation in Processing. The update that
   * checks it also locks the row until the step commits, and marks the generation as advanced (updatedAt).
   */
  private workerStep<T>(id: string, token: string, step: (tx: Tx, generation: Generation) => Promise<T>) {
    return inTransaction(this.prisma, async (tx): Promise<WorkerStep<T>> => {
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
}

async function failLocked(
  tx: Tx,
  generation: Generation,
  reason: string,
  view: GenerationView,
  ran?: EngineRun,
): Promise<void> {
  if (generation.creditHeld) await releaseCredits(tx, generation, "system");
  const images = await tx.image.findMany({ where: { generationId: generation.id }, ...IMAGES.images });
  await applyTransition(tx, { ...generation, images }, "fail", view, {
    creditHeld: false,
    failureReason: reason,
    workerToken: null,
    ...ran,
  });
}

function secondsAgo(seconds: number): Date {
  return new Date(Date.now() - seconds * 1000);
}

function isRecordNotFound(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2025";
}
