import type { StoreCollection } from "./bot-store.js";

/** One replica's claim to handle something once (an interaction every replica receives). */
export interface ClaimRecord {
  key: string;
  claimedAt: number;
}

/** Claims are kept this long: far past the platforms' redelivery of the same thing. */
const CLAIM_RETENTION_MS = 24 * 3_600_000;
const PRUNE_INTERVAL_MS = 3_600_000;

/**
 * Lets one replica of a bot, of all those sharing its store, handle each thing once: every gateway session
 * of a Discord bot receives every interaction, and a second answer is refused (40060) and logged.
 */
export class OnceClaims {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly records: StoreCollection<ClaimRecord>,
    private readonly now: () => number = Date.now,
  ) {}

  /** True for the first replica to claim `key`, false for every later claim. */
  async claim(key: string): Promise<boolean> {
    const claimed = await this.records.update(key, (current) =>
      current ? undefined : { key, claimedAt: this.now() },
    );
    return claimed !== undefined;
  }

  /** Forgets the claims past their retention, now and every hour. */
  start(): void {
    const prune = async () => {
      const oldest = this.now() - CLAIM_RETENTION_MS;
      for (const claim of await this.records.values()) {
        if (claim.claimedAt < oldest) await this.records.delete(claim.key);
      }
    };
    void prune().catch(() => {});
    clearInterval(this.timer);
    this.timer = setInterval(() => void prune().catch(() => {}), PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
