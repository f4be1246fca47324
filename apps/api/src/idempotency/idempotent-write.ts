import { AsyncLocalStorage } from "node:async_hooks";
import { Prisma } from "@imagehub/db";
import type { IdempotencyScope } from "./idempotency.repository.js";
import { storedAnswerOf } from "./stored-answer.js";

/** The key a request runs under (it claimed it), and the status its success answers with. */
interface HeldKey {
  scope: IdempotencyScope;
  statusCode: number;
}

/** How a write's result answers the request that made it. */
export type Answer<Result> = (result: Result) => unknown;

const heldKey = new AsyncLocalStorage<HeldKey>();

/**
 * Runs `work`, a request's handler, as holding `key`: the writes it makes record its answer under the key
 * in their own transaction, so that a retry with the key can never write again, even when the process
 * dies or the database goes away right after the write has committed.
 */
export function runHoldingKey<T>(key: HeldKey, work: () => T): T {
  return heldKey.run(key, work);
}

/**
 * One more step (leading comma included) for the WITH of a one-statement write: records `answer` under the
 * held key when the step `written` wrote a row. Nothing when the request holds no key.
 */
export function answerStep(answer: unknown, written: Prisma.Sql): Prisma.Sql {
  const held = heldKey.getStore();
  if (!held) return Prisma.empty;
  return Prisma.sql`, answered AS (${answerUpdate(held, answer, Prisma.sql`EXISTS (SELECT 1 FROM ${written})`)})`;
}

/** Records `answer` under the held key in the write's transaction; nothing when the request holds no key. */
export async function recordAnswer(tx: Prisma.TransactionClient, answer: unknown): Promise<void> {
  const held = heldKey.getStore();
  if (held) await tx.$executeRaw(answerUpdate(held, answer, Prisma.sql`TRUE`));
}

function answerUpdate(held: HeldKey, answer: unknown, condition: Prisma.Sql): Prisma.Sql {
  const { scope } = held;
  const stored = storedAnswerOf(held.statusCode, answer);
  const response = stored.response === null ? null : JSON.stringify(stored.response);
  return Prisma.sql`
    UPDATE idempotency_keys SET status_code = ${stored.statusCode}, response = ${response}::jsonb
    WHERE account_id = ${scope.accountId}::uuid AND key = ${scope.key} AND status_code IS NULL AND ${condition}`;
}
