import type { Credits } from "@imagehub/domain";
import { Injectable } from "@nestjs/common";
import { AccountsRepository } from "./accounts.repository.js";

@Injectable()
export class CreditsService {
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
}
