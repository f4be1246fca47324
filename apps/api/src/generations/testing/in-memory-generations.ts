import type { CreditBucketType, Generation } from "@imagehub/db";
import { GenerationStatus } from "@imagehub/domain";
import type { Debit } from "../../accounts/credit-ledger.statements.js";
import { NotEnoughCredits } from "../../common/domain-errors.js";
import type { KeyedAnswer } from "../../idempotency/idempotent-write.js";
import { storedAnswerOf } from "../../idempotency/stored-answer.js";
import { creditHold, keptAndRemoved } from "../generation.state-machine.js";
import type { GenerationEvent } from "../generation.statements.js";
import type { GenerationWithImages } from "../generation.view.js";

type Bucket = { balance: number; unlimited: boolean };

/**
 * What the generation repositories' tables hold, in memory: generations, credit buckets and their ledger,
 * images' files and purchases, outbox events and the answers kept under idempotency keys. Shared by the
 * in-memory repositories, and read by the specs. `atomically` gives a step the all-or-nothing of a
 * transaction.
 */
export class GenerationWorld {
  generations = new Map<string, GenerationWithImages>();
  buckets = new Map<string, Bucket>();
  ledger: { accountId: string; type: CreditBucketType; amount: number; reason: string; reference: string }[] =
    [];
  /** Storage keys of each image's files. */
  imageFiles = new Map<string, string[]>();
  /** Images somebody bought. */
  bought = new Set<string>();
  /** Images kept for their buyer after their generation went. */
  detached = new Set<string>();
  events: (GenerationEvent & { accountId: string; generationId: string })[] = [];
  /** Answers kept under `accountId:key`. */
  answers = new Map<string, { statusCode: number; response: unknown }>();

  giveCredits(accountId: string, type: CreditBucketType, balance: number, unlimited = false): void {
    this.buckets.set(`${accountId}:${type}`, { balance, unlimited });
  }

  balance(accountId: string, type: CreditBucketType): number | undefined {
    return this.buckets.get(`${accountId}:${type}`)?.balance;
  }

  /** Every bucket pays `amount`, or none does (NotEnoughCredits names the first that cannot). */
  debit({ accountId, types, amount, reason, reference }: Debit): void {
    for (const type of types) {
      const bucket = this.buckets.get(`${accountId}:${type}`);
      if (!bucket || (!bucket.unlimited && bucket.balance < amount)) {
        throw new NotEnoughCredits(type, amount, bucket?.balance ?? 0);
      }
    }
    for (const type of types) this.change(accountId, type, -amount, reason, reference);
  }

  /** Gives back what the generation holds; an unlimited or missing bucket needs nothing. */
  release(generation: Generation, actor: string): void {
    const { types, amount, reference } = creditHold(generation, actor);
    for (const type of types) this.change(generation.accountId, type, amount, "refund", reference);
  }

  record(generation: GenerationWithImages, event: GenerationEvent): void {
    this.events.push({ ...event, accountId: generation.accountId, generationId: generation.id });
  }

  /** The answer of `result` under the request's key, unless one is kept already. */
  answer<Result>({ key, answerOf }: KeyedAnswer<Result>, result: Result): void {
    if (!key) return;
    const at = `${key.scope.accountId}:${key.scope.key}`;
    if (!this.answers.has(at)) {
      const stored = storedAnswerOf(key.statusCode, answerOf(result));
      this.answers.set(at, { statusCode: stored.statusCode, response: stored.response });
    }
  }

  /** How many of the account's generations are Pending or Processing. */
  running(accountId: string): number {
    return [...this.generations.values()].filter(
      (generation) =>
        generation.accountId === accountId &&
        (generation.status === GenerationStatus.Pending || generation.status === GenerationStatus.Processing),
    ).length;
  }

  /** The generation's images go, but the bought ones, which are detached. Answers what went. */
  removeImages(generation: GenerationWithImages) {
    const images = generation.images.map((image) => ({
      ...image,
      purchases: this.bought.has(image.id) ? 1 : 0,
    }));
    const { kept, removed } = keptAndRemoved(images);
    for (const image of kept) this.detached.add(image.id);
    const storageKeys = removed.flatMap((image) => this.imageFiles.get(image.id) ?? []);
    for (const image of removed) this.imageFiles.delete(image.id);
    return { imageIds: removed.map((image) => image.id), storageKeys };
  }

  /** Runs `step` as a transaction: what it changed is undone when it throws. */
  atomically<T>(step: () => T): T {
    const before = structuredClone(this.tables());
    try {
      return step();
    } catch (error) {
      Object.assign(this, before);
      throw error;
    }
  }

  private tables() {
    const { generations, buckets, ledger, imageFiles, bought, detached, events, answers } = this;
    return { generations, buckets, ledger, imageFiles, bought, detached, events, answers };
  }

  private change(
    accountId: string,
    type: CreditBucketType,
    amount: number,
    reason: string,
    reference: string,
  ) {
    const bucket = this.buckets.get(`${accountId}:${type}`);
    if (!bucket || bucket.unlimited) return;
    bucket.balance += amount;
    this.ledger.push({ accountId, type, amount, reason, reference });
  }
}
