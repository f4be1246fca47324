import { type CreditBucketType, type CreditEntryReason, Prisma } from "@imagehub/db";
import { NotEnoughCredits } from "../common/domain-errors.js";

interface LedgerChange {
  accountId: string;
  type: CreditBucketType;
  amount: number;
  reason: CreditEntryReason;
  /** What the entry is about: an image id, a generation id. */
  reference: string;
  actor: string;
}

/** `amount` from each of the account's buckets of `types`: all of them pay, or none does. */
export interface Debit extends Omit<LedgerChange, "type"> {
  types: readonly CreditBucketType[];
}

/** What a statement built on `debitSteps` answers (`DEBIT_OUTCOME`): the first bucket that could not pay. */
export interface DebitOutcome {
  shortType: CreditBucketType | null;
  shortBalance: number | null;
}

/**
 * The debit as the first common table expressions of one statement, so that whatever the debit pays for
 * is written in the same statement, all or nothing. The buckets are locked (in one order, so that
 * concurrent debits queue rather than deadlock); when every one exists and can pay, each that is not
 * unlimited gets its ledger entry, whose trigger keeps the balance, and the balance CHECK of credit_buckets
 * is the last word should anything bypass this. The rest of the statement writes only `WHERE ${DEBIT_PAID}`
 * and selects `DEBIT_OUTCOME`.
 */
export function debitSteps(debit: Debit, onlyIf: Prisma.Sql = Prisma.sql`TRUE`): Prisma.Sql {
  // One text parameter, not an array: through Prisma's PGlite adapter an array can arrive as a scalar
  // ("malformed array literal").
  const types = Prisma.sql`string_to_array(${debit.types.join(",")}, ',')::"CreditBucketType"[]`;
  return Prisma.sql`
    debit_buckets AS (
      SELECT id, type, unlimited, balance FROM credit_buckets
      WHERE account_id = ${debit.accountId}::uuid AND type = ANY(${types})
      ORDER BY type FOR UPDATE
    ), debit_short AS (
      SELECT wanted.type, coalesce(bucket.balance, 0) AS balance
      FROM unnest(${types}) WITH ORDINALITY AS wanted (type, position)
      LEFT JOIN debit_buckets bucket ON bucket.type = wanted.type
      WHERE bucket.id IS NULL OR (NOT bucket.unlimited AND bucket.balance < ${debit.amount})
      ORDER BY wanted.position LIMIT 1
    ), debit_entries AS (
      INSERT INTO credit_ledger (bucket_id, amount, reason, reference, actor)
      SELECT id, ${-debit.amount}, ${debit.reason}::"CreditEntryReason", ${debit.reference}, ${debit.actor}
      FROM debit_buckets WHERE NOT unlimited AND ${DEBIT_PAID} AND ${onlyIf}
    )`;
}

export const DEBIT_PAID = Prisma.sql`NOT EXISTS (SELECT 1 FROM debit_short)`;

export const DEBIT_OUTCOME = Prisma.sql`
  (SELECT type::text FROM debit_short) AS "shortType", (SELECT balance FROM debit_short) AS "shortBalance"`;

/** Throws NotEnoughCredits when a bucket could not pay: then the statement wrote nothing. */
export function assertPaid(outcome: DebitOutcome | undefined, debit: Debit): void {
  if (outcome?.shortType) {
    throw new NotEnoughCredits(outcome.shortType, debit.amount, outcome.shortBalance ?? 0);
  }
}

/** The debit alone, inside the caller's transaction. */
export async function debit(tx: Prisma.TransactionClient, change: Debit): Promise<void> {
  const [outcome] = await tx.$queryRaw<DebitOutcome[]>`WITH ${debitSteps(change)} SELECT ${DEBIT_OUTCOME}`;
  assertPaid(outcome, change);
}

/** Gives `amount` back to the account's bucket (a refund); an unlimited or missing bucket needs none. */
export async function refund(tx: Prisma.TransactionClient, change: LedgerChange): Promise<void> {
  const bucket = await tx.creditBucket.findUnique({
    where: { accountId_type: { accountId: change.accountId, type: change.type } },
    select: { id: true, unlimited: true },
  });
  if (!bucket || bucket.unlimited) return;
  await tx.creditLedgerEntry.create({
    data: {
      bucketId: bucket.id,
      amount: change.amount,
      reason: change.reason,
      reference: change.reference,
      actor: change.actor,
    },
  });
}
