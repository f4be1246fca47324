import { type Database, type Generation, Prisma } from "@imagehub/db";
import type { ImageEngineName } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { assertPaid, type Debit, type DebitOutcome, debit } from "../accounts/credit-ledger.statements.js";
import type { StoredRendition } from "../catalogue/catalogue.repository.js";
import { DATABASE, PRISMA, type PrismaClient } from "../common/core.module.js";
import { KeyedTurns } from "../common/keyed-turns.js";
import { isUuid } from "../common/uuid.js";
import { type KeyedAnswer, recordAnswer } from "../idempotency/idempotent-write.js";
import {
  creditHold,
  edited,
  type GenerationChanges,
  keptAndRemoved,
  transition,
} from "./generation.state-machine.js";
import type { GenerationEvent } from "./generation.statements.js";
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

/** What a create writes with the generation, in the same statement. */
export interface CreateWrite {
  hold: Debit;
  /** The account's cap on generations Pending or Processing (0: no cap). */
  runningCap: number;
  event: GenerationEvent;
  answer: KeyedAnswer<GenerationWithImages>;
}

/** What a retry needs to queue the generation again, and the request's answer to record with it. */
export interface RetryWrite {
  actor: string;
  runningCap: number;
  /** The engine to draw the new attempt: chosen again, as its params may have changed since. */
  chooseEngine: (generation: Generation) => ImageEngineName;
  view: GenerationView;
  answer: KeyedAnswer<GenerationWithImages>;
}

export interface GenerationFilter {
  sort: "newest" | "oldest";
  name?: string | undefined;
  tag?: string | undefined;
  status?: number | undefined;
  limit: number;
  offset: number;
}

/** Images a retry or a delete removed, and their files, to remove once the transaction has committed. */
export interface RemovedImages {
  imageIds: string[];
  storageKeys: string[];
}

/**
 * The interface's side of generations: their creates, reads, edits, retries and deletes, with their credit
 * holds, their events and the request's answer in the same transaction.
 */
@Injectable()
export class GenerationsRepository {
  private readonly runningCountTurns = new KeyedTurns();

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    // A create is the interface's hottest write: one statement on the driver itself.
    @Inject(DATABASE) private readonly database: Database,
  ) {}

  /** The account's fast quota, undefined when it has none. */
  async findFastQuota(accountId: string): Promise<{ balance: number; unlimited: boolean } | undefined> {
    const quota = await this.prisma.creditBucket.findUnique({
      where: { accountId_type: { accountId, type: "f_images_print_fast" } },
      select: { balance: true, unlimited: true },
    });
    return quota ?? undefined;
  }

  /**
   * Writes `generation` with its hold, its event and the request's answer, in one statement. Answers false,
   * having written nothing, when the account has no room under the running cap; NotEnoughCredits when a
   * bucket cannot pay.
   */
  async create(generation: GenerationWithImages, write: CreateWrite): Promise<boolean> {
    const { hold, runningCap, event, answer } = write;
    const statement = statements.createGeneration(generation, hold, runningCap, event, {
      key: answer.key,
      value: answer.answerOf(generation),
    });
    type Outcome = DebitOutcome & { hasRoom: boolean };
    const [outcome] =
      runningCap === 0
        ? await this.database.query<Outcome>(statement, PREPARED)
        : await this.countingRunning(generation.accountId, runningCap, (tx) =>
            tx.$queryRaw<Outcome[]>(statement),
          );
    if (outcome?.hasRoom === false) return false;
    assertPaid(outcome, hold);
    return true;
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
    return inTransaction(this.prisma, async (tx) => ({
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

  /** Writes what the state machine makes of the changes (`edited`). Undefined: not the account's. */
  update(accountId: string, id: string, changes: GenerationChanges) {
    return inTransaction(this.prisma, async (tx) => {
      const current = await this.lockOwned(tx, accountId, id);
      if (!current) return undefined;
      const { params, ...fields } = edited(current, changes);
      return tx.generation.update({
        where: { id },
        data: { ...fields, ...(params && { params: params as unknown as Prisma.InputJsonArray }) },
        include: IMAGES,
      });
    });
  }

  /**
   * Error → Pending: the images of the failed run go, a credit is held again, a new attempt is queued, the
   * answer recorded. Undefined: not the account's; `hasRoom` false: the account has no room under the
   * running cap, and nothing was written.
   */
  retry(accountId: string, id: string, write: RetryWrite) {
    return this.countingRunning(accountId, write.runningCap, async (tx) => {
      const current = await this.lockOwned(tx, accountId, id);
      if (!current) return undefined;
      transition(current.status, "retry");
      if (write.runningCap > 0) {
        const [room] = await tx.$queryRaw<{ hasRoom: boolean }[]>(
          statements.selectRunningRoom(accountId, write.runningCap),
        );
        if (!room?.hasRoom) return { hasRoom: false as const };
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
          engine: write.chooseEngine(current),
          engineModel: null,
          progress: null,
        },
      });
      await debit(tx, creditHold(queued, write.actor));
      const generation = await applyTransition(tx, { ...queued, images: [] }, "retry", write.view);
      await recordAnswer(tx, write.answer, generation);
      return { hasRoom: true as const, generation, removed };
    });
  }

  /**
   * Deletes the account's generations among `ids`, in one transaction with the request's answer; ids of no
   * generation of the account are skipped. A held credit goes back. Answers the ids deleted and the images
   * that went.
   */
  delete(accountId: string, ids: string[], actor: string, answer: KeyedAnswer<string[]>) {
    return inTransaction(this.prisma, async (tx) => {
      const removed: RemovedImages = { imageIds: [], storageKeys: [] };
      const deleted: string[] = [];
      for (const id of new Set(ids)) {
        const current = await this.lockOwned(tx, accountId, id);
        if (!current) continue;
        if (current.creditHeld) await releaseCredits(tx, current, actor);
        const images = await this.removeImages(tx, id);
        removed.imageIds.push(...images.imageIds);
        removed.storageKeys.push(...images.storageKeys);
        await tx.generation.delete({ where: { id } });
        deleted.push(id);
      }
      await recordAnswer(tx, answer, deleted);
      return { deleted, removed };
    });
  }

  private async lockOwned(tx: Tx, accountId: string, id: string): Promise<Generation | undefined> {
    if (!isUuid(id)) return undefined;
    const [locked] = await tx.$queryRaw<unknown[]>(statements.lockOwned(accountId, id));
    return locked ? tx.generation.findUniqueOrThrow({ where: { id } }) : undefined;
  }

  /**
   * Removes the generation's images but those the state machine keeps, which are detached. Answers the
   * removed ones, with the storage keys of their files to remove once the transaction has committed.
   */
  private async removeImages(tx: Tx, generationId: string): Promise<RemovedImages> {
    const images = await tx.image.findMany({
      where: { generationId },
      select: { id: true, renditions: true, _count: { select: { purchases: true } } },
    });
    const { kept, removed } = keptAndRemoved(
      images.map((image) => ({ ...image, purchases: image._count.purchases })),
    );
    if (kept.length > 0) {
      await tx.image.updateMany({
        where: { id: { in: kept.map((image) => image.id) } },
        data: { generationId: null, generationIndex: null },
      });
    }
    const imageIds = removed.map((image) => image.id);
    await tx.image.deleteMany({ where: { id: { in: imageIds } } });
    const storageKeys = removed.flatMap((image) =>
      Object.values(image.renditions as unknown as Record<string, StoredRendition>).map((file) => file.key),
    );
    return { imageIds, storageKeys };
  }

  /**
   * A transaction in which the account's generations Pending or Processing can be counted against
   * `runningCap` (0: no cap, a plain transaction). Its creates and retries take turns in this process
   * before they take a pooled connection: a burst of one account's creates would otherwise fill the pool
   * with connections that only wait for its row lock, and every other account's requests would wait too.
   */
  private countingRunning<T>(accountId: string, runningCap: number, work: (tx: Tx) => Promise<T>) {
    if (runningCap === 0) return inTransaction(this.prisma, work);
    return this.runningCountTurns.run(accountId, () =>
      inTransaction(this.prisma, async (tx) => {
        await tx.$queryRaw(statements.lockRunningCount(accountId));
        return work(tx);
      }),
    );
  }
}

/** Prisma's `contains` is a LIKE pattern: `%`, `_` and the backslash that escapes them must match as text. */
function asLikeText(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}
