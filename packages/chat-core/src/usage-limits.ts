import type { ImagehubClient } from "@imagehub/client";
import { GenerationStatus } from "@imagehub/domain";

export interface UsageLimitsOptions {
  /** A person waits this long between two generations they start. */
  userCooldownSeconds: number;
  /** At most this many of a team's generations are queued or running at once. */
  maxRunningPerTeam: number;
}

const RUNNING_STATUSES = [GenerationStatus.Create, GenerationStatus.Pending, GenerationStatus.Processing];

/**
 * Protects a team's credits from a runaway channel. The cooldown is kept in memory (a restart forgives
 * it); running generations are counted by the API from the team's tag, so they survive restarts. Two
 * commands at the same instant may both pass the count: the limit is a guard, not a quota.
 */
export class UsageLimits {
  private readonly lastStarts = new Map<string, number>();

  constructor(
    private readonly options: UsageLimitsOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Why this person may not start a generation now, or undefined when they may. */
  async refusal(
    { teamId, userId, tag }: { teamId: string; userId: string; tag: string },
    client: ImagehubClient,
  ): Promise<string | undefined> {
    const { userCooldownSeconds, maxRunningPerTeam } = this.options;
    const last = this.lastStarts.get(`${teamId}/${userId}`);
    const waitMs = last === undefined ? 0 : last + userCooldownSeconds * 1000 - this.now();
    if (waitMs > 0) {
      return `You can start another generation in ${Math.ceil(waitMs / 1000)} s (one every ${userCooldownSeconds} s per person).`;
    }
    const counts = await Promise.all(
      RUNNING_STATUSES.map((status) => client.generations.find({ tag, status, limit: 1 })),
    );
    const running = counts.reduce((sum, page) => sum + page.filteredResults, 0);
    if (running >= maxRunningPerTeam) {
      return `${running} generations of this team are already queued or running (at most ${maxRunningPerTeam} at once): wait for one to finish.`;
    }
    return undefined;
  }

  noteStarted({ teamId, userId }: { teamId: string; userId: string }): void {
    this.lastStarts.set(`${teamId}/${userId}`, this.now());
  }
}
