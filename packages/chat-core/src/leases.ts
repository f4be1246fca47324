import { randomUUID } from "node:crypto";
import type { StoreCollection } from "./bot-store.js";

/** A replica's hold on something only one replica may do at a time (a channel's turn, a reconcile round). */
export interface LeaseRecord {
  key: string;
  holder: string;
  until: number;
}

/** A lease outlives a platform call (each has a timeout); it is renewed while its holder still works. */
export const LEASE_MS = 60_000;
export const LEASE_RENEW_MS = LEASE_MS / 3;

/** One replica's leases in the shared store. */
export class Leases {
  /** Who this replica is, in the leases it holds. */
  private readonly holder = randomUUID();

  constructor(
    private readonly records: StoreCollection<LeaseRecord>,
    private readonly now: () => number,
  ) {}

  /** Takes the lease of `key` when nobody holds it, this replica included (or the hold lapsed). */
  async take(key: string): Promise<boolean> {
    const now = this.now();
    const lease = await this.records.update(key, (current) =>
      current && current.until > now ? undefined : { key, holder: this.holder, until: now + LEASE_MS },
    );
    return lease !== undefined;
  }

  async release(key: string): Promise<void> {
    await this.records.deleteIf(key, (current) => current.holder === this.holder);
  }

  /** Extends this replica's hold on `key`; answers until when. */
  async renew(key: string): Promise<number> {
    const until = this.now() + LEASE_MS;
    await this.records.update(key, (current) =>
      current?.holder === this.holder ? { ...current, until } : undefined,
    );
    return until;
  }
}
