import { type Generation, Prisma } from "@imagehub/db";
import { refund } from "../accounts/credit-ledger.statements.js";
import type { PrismaClient } from "../common/core.module.js";
import { creditHold, type GenerationTransition, transition } from "./generation.state-machine.js";
import type { GenerationView, GenerationWithImages } from "./generation.view.js";

// The steps both generation repositories take inside their transactions.

export type Tx = Prisma.TransactionClient;

/** A generation's images as the view shows them, in the order the engine made them. */
export const IMAGES = {
  images: {
    select: { id: true, titles: true, free: true, validate: true },
    orderBy: { generationIndex: "asc" },
  },
} as const satisfies Prisma.GenerationInclude;

/** The hot path's statements are the same text every time: prepared once per connection. */
export const PREPARED = { prepared: true };

/** Every read inside goes through the transaction too (an embedded database has a single connection). */
export function inTransaction<T>(prisma: PrismaClient, work: (tx: Tx) => Promise<T>): Promise<T> {
  return prisma.$transaction(work, { maxWait: 10_000, timeout: 10_000 });
}

/** Writes a status change, with `data`, and the event that reports it, in the caller's transaction. */
export async function applyTransition(
  tx: Tx,
  generation: GenerationWithImages,
  name: GenerationTransition,
  view: GenerationView,
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
      payload: view(changed) as unknown as Prisma.InputJsonObject,
    },
  });
  return changed;
}

/** Gives back the credits the generation holds. */
export async function releaseCredits(tx: Tx, generation: Generation, actor: string): Promise<void> {
  const { types, ...hold } = creditHold(generation, actor);
  for (const type of types) await refund(tx, { ...hold, type, reason: "refund" });
}
