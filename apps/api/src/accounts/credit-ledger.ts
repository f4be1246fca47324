import type { CreditBucketType, CreditEntryReason, Prisma } from "@imagehub/db";

/** Raised inside a transaction to roll it back whole when a bucket cannot pay. */
export class NotEnoughCredits extends Error {
  constructor(
    readonly type: CreditBucketType,
    readonly needed: number,
    readonly balance: number,
  ) {
    super(`not enough ${type} credits`);
  }
}

interface LedgerChange {
  accountId: string;
  type: CreditBucketType;
  amount: number;
  reason: CreditEntryReason;
  /** What the entry is about: an image id, a generation id. */
  reference: string;
  actor: string;
}

/**
 * Takes `amount` from the account's bucket inside the caller's transaction. The bucket row is locked so that
 * concurrent debits queue; the balance CHECK of credit_buckets is the last word should anything bypass this.
 */
export async function debit(tx: Prisma.TransactionClient, change: LedgerChange): Promise<void> {
  const [bucket] = await tx.$queryRaw<{ id: string; unlimited: boolean; balance: number }[]>`
    SELECT id, unlimited, balance FROM credit_buckets
    WHERE account_id = ${change.accountId}::uuid AND type = ${change.type}::"CreditBucketType"
    FOR UPDATE`;
  if (bucket?.unlimited) return;
  if (!bucket || bucket.balance < change.amount) {
    throw new NotEnoughCredits(change.type, change.amount, bucket?.balance ?? 0);
  }
  await tx.creditLedgerEntry.create({
    data: {
      bucketId: bucket.id,
      amount: -change.amount,
      reason: change.reason,
      reference: change.reference,
      actor: change.actor,
    },
  });
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
