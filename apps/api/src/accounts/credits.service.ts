import type { CreditLedgerPage, CreditLedgerQuery, Credits } from "@imagehub/domain";
import { Injectable, Logger } from "@nestjs/common";
import { OnJob } from "../jobs/on-job.decorator.js";
import { AccountsRepository } from "./accounts.repository.js";
import { renewCreditsJob } from "./credit-renewal.job.js";

const RENEWAL_BATCH = 500;

@Injectable()
export class CreditsService {
  private readonly logger = new Logger(CreditsService.name);

  constructor(private readonly accounts: AccountsRepository) {}

  async credits(accountId: string): Promise<Credits> {
    const balances = await this.accounts.balances(accountId);
    return {
      credits: balances.map((bucket) => ({
        type: bucket.type,
        credit: bucket.balance,
        creditTotal: bucket.creditTotal,
        unlimited: bucket.unlimited,
      })),
    };
  }

  /** One page of the ledger, newest first; the cursor is the id of the page's last entry. */
  async ledger(accountId: string, query: CreditLedgerQuery): Promise<CreditLedgerPage> {
    const entries = await this.accounts.ledger(accountId, {
      beforeId: query.before === undefined ? undefined : BigInt(query.before),
      limit: query.limit + 1,
    });
    const page = entries.slice(0, query.limit);
    return {
      entries: page.map((entry) => ({
        id: entry.id.toString(),
        createdAt: entry.createdAt.toISOString(),
        type: entry.type,
        change: entry.amount,
        reason: entry.reason,
        reference: entry.reference,
      })),
      nextCursor: entries.length > query.limit ? (page.at(-1)?.id.toString() ?? null) : null,
    };
  }

  @OnJob(renewCreditsJob)
  async renewDueBuckets(): Promise<{ renewed: number }> {
    const now = new Date();
    let renewed = 0;
    for (let batch = RENEWAL_BATCH; batch === RENEWAL_BATCH; renewed += batch) {
      batch = await this.accounts.renewDueBuckets(now, RENEWAL_BATCH);
    }
    if (renewed > 0) this.logger.log(`renewed ${renewed} credit buckets`);
    return { renewed };
  }
}
