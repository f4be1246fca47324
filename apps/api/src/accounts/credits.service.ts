import type { Credits } from "@imagehub/domain";
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
