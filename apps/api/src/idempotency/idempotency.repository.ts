import type { Prisma } from "@imagehub/db";
import { Inject, Injectable } from "@nestjs/common";
import { PRISMA, type PrismaClient } from "../common/core.module.js";

/** One account's key. */
export interface IdempotencyScope {
  accountId: string;
  key: string;
}

/** What a request with a key may do: run (the key is its own now), or one of the refusals or a replay. */
export type IdempotencyClaim =
  | { kind: "run" }
  | { kind: "in-progress" }
  | { kind: "other-request" }
  | { kind: "replay"; statusCode: number; response: Prisma.JsonValue };

/** The idempotency_keys table: each account's keys, with the first answer given to each. */
@Injectable()
export class IdempotencyRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /**
   * Takes the key for a request, in one statement: a new key, one older than `keptHours`, or one whose
   * first request never recorded its answer within `abandonedSeconds` (its process died) is taken over.
   * Otherwise answers what the key holds.
   */
  async claim(
    { accountId, key }: IdempotencyScope,
    requestHash: string,
    { keptHours, abandonedSeconds }: { keptHours: number; abandonedSeconds: number },
  ): Promise<IdempotencyClaim> {
    const taken = await this.prisma.$queryRaw<unknown[]>`
      INSERT INTO idempotency_keys (account_id, key, request_hash) VALUES (${accountId}::uuid, ${key}, ${requestHash})
      ON CONFLICT (account_id, key) DO UPDATE
        SET request_hash = EXCLUDED.request_hash, status_code = NULL, response = NULL, created_at = now()
        WHERE idempotency_keys.created_at < now() - make_interval(hours => ${keptHours}::int)
          OR (idempotency_keys.status_code IS NULL
            AND idempotency_keys.created_at < now() - make_interval(secs => ${abandonedSeconds}::int))
      RETURNING 1`;
    if (taken.length > 0) return { kind: "run" };
    const held = await this.prisma.idempotencyKey.findUnique({
      where: { accountId_key: { accountId, key } },
    });
    // Gone between the two statements (released by a request that failed): another request is at it.
    if (!held) return { kind: "in-progress" };
    if (held.requestHash !== requestHash) return { kind: "other-request" };
    if (held.statusCode === null) return { kind: "in-progress" };
    return { kind: "replay", statusCode: held.statusCode, response: held.response };
  }

  /** The first answer stays: a write may have recorded it in its own transaction. */
  async record(scope: IdempotencyScope, statusCode: number, response: Prisma.InputJsonValue | null) {
    await this.prisma.idempotencyKey.updateMany({
      where: { ...scope, statusCode: null },
      data: { statusCode, response: response ?? undefined },
    });
  }

  /** Lets the key be used again: its request failed without an answer worth repeating. */
  async release(scope: IdempotencyScope): Promise<void> {
    await this.prisma.idempotencyKey.deleteMany({ where: { ...scope, statusCode: null } });
  }

  async expire(keptHours: number): Promise<number> {
    const { count } = await this.prisma.idempotencyKey.deleteMany({
      where: { createdAt: { lt: new Date(Date.now() - keptHours * 3600_000) } },
    });
    return count;
  }
}
