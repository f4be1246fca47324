import { Prisma } from "@imagehub/db";
import type { IdempotencyScope } from "./idempotency.repository.js";
import { storedAnswerOf } from "./stored-answer.js";

/** The key a request runs under (the interceptor claimed it), and the status its success answers with. */
export interface HeldKey {
  scope: IdempotencyScope;
  statusCode: number;
}

/**
 * The answer a write records under the request's key in its own transaction, so that a retry with the key
 * can never write again, even when the process dies or the database goes away right after the commit.
 * `answerOf` turns the write's result into the request's answer; `key` undefined: the request holds none,
 * and nothing is recorded.
 */
export interface KeyedAnswer<Result> {
  key: HeldKey | undefined;
  answerOf: (result: Result) => unknown;
}

/**
 * One more step (leading comma included) for the WITH of a one-statement write: records `answer` under
 * `key` when the step `written` wrote a row. Nothing without a key.
 */
export function answerStep(key: HeldKey | undefined, answer: unknown, written: Prisma.Sql): Prisma.Sql {
  if (!key) return Prisma.empty;
  return Prisma.sql`, answered AS (${answerUpdate(key, answer, Prisma.sql`EXISTS (SELECT 1 FROM ${written})`)})`;
}

/** Records the answer of `result` in the write's transaction; nothing without a key. */
export async function recordAnswer<Result>(
  tx: Prisma.TransactionClient,
  { key, answerOf }: KeyedAnswer<Result>,
  result: Result,
): Promise<void> {
  if (key) await tx.$executeRaw(answerUpdate(key, answerOf(result), Prisma.sql`TRUE`));
}

function answerUpdate({ scope, statusCode }: HeldKey, answer: unknown, condition: Prisma.Sql): Prisma.Sql {
  const stored = storedAnswerOf(statusCode, answer);
  const response = stored.response === null ? null : JSON.stringify(stored.response);
  return Prisma.sql`
    UPDATE idempotency_keys SET status_code = ${stored.statusCode}, response = ${response}::jsonb
    WHERE account_id = ${scope.accountId}::uuid AND key = ${scope.key} AND status_code IS NULL AND ${condition}`;
}
