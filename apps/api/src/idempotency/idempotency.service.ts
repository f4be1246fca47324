import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Prisma } from "@imagehub/db";
import { IDEMPOTENCY_KEY_MAX_LENGTH } from "@imagehub/domain";
import { Injectable, Logger } from "@nestjs/common";
import { Conflict, InvalidRequest } from "../common/domain-errors.js";
import { refusalBodyOf, retryAfterOf } from "../common/error-body.js";
import { RetryLaterException } from "../common/retry-later.exception.js";
import { OnJob } from "../jobs/on-job.decorator.js";
import { expireIdempotencyKeysJob } from "./idempotency.jobs.js";
import { IdempotencyRepository, type IdempotencyScope } from "./idempotency.repository.js";
import { storedAnswerOf } from "./stored-answer.js";

/** Stripe keeps keys 24 hours. */
const KEPT_HOURS = 24;
/** A first request that recorded no answer by then died with its process: a retry may run it again. */
const ABANDONED_SECONDS = 60;
/** A key the database could not free is tried again after this long, doubling up to the longest wait. */
const RELEASE_RETRY_FIRST_MS = 250;
const RELEASE_RETRY_LONGEST_MS = 2_000;

/**
 * Idempotency keys with Stripe's semantics: the same key and request get the first answer again; the same
 * key with another request, or while the first still runs, gets 409. Keys are the account's own.
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger(IdempotencyService.name);

  constructor(private readonly keys: IdempotencyRepository) {}

  async start(scope: IdempotencyScope, request: { method: string; url: string; body: unknown }) {
    if (scope.key.length === 0 || scope.key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
      throw new InvalidRequest([`Idempotency-Key: must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`]);
    }
    const requestHash = createHash("sha256")
      .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
      .digest("hex");
    const claim = await this.keys.claim(scope, requestHash, {
      keptHours: KEPT_HOURS,
      abandonedSeconds: ABANDONED_SECONDS,
    });
    if (claim.kind === "in-progress") {
      throw new RetryLaterException(409, "a request with this Idempotency-Key is still being processed", 1);
    }
    if (claim.kind === "other-request") {
      throw new Conflict(
        "this Idempotency-Key was used with another request (method, path or body); use a new key",
      );
    }
    return claim;
  }

  /** Keeps the answer (never a secret it holds) for the key's next requests, unless the write recorded it. */
  async succeeded(scope: IdempotencyScope, statusCode: number, response: unknown): Promise<void> {
    const stored = storedAnswerOf(statusCode, response);
    await this.keys.record(scope, stored.statusCode, stored.response as Prisma.InputJsonValue | null);
  }

  /**
   * A refusal (4xx) is the answer too, as with Stripe; after anything else (the database or Redis away, a
   * bug) the key is released, so that the client's retry runs the request again.
   */
  async failed(scope: IdempotencyScope, error: unknown): Promise<void> {
    try {
      const refusal = refusalBodyOf(error);
      if (refusal && refusal.statusCode < 500 && retryAfterOf(error) === undefined) {
        await this.keys.record(scope, refusal.statusCode, refusal as unknown as Prisma.InputJsonValue);
      } else {
        await this.keys.release(scope);
      }
    } catch (recordError) {
      this.logger.warn(`idempotency key not settled: ${(recordError as Error).message}`);
      void this.releaseWhenReachable(scope);
    }
  }

  /**
   * The database is away: the key is freed as soon as it is back, so that the client's retries (answered
   * 409 with Retry-After meanwhile) run the request again within seconds of its return, not once the key
   * counts as abandoned. One statement per wait, at most one every RELEASE_RETRY_LONGEST_MS.
   */
  private async releaseWhenReachable(scope: IdempotencyScope): Promise<void> {
    const abandonedAt = Date.now() + ABANDONED_SECONDS * 1000;
    for (let waitMs = RELEASE_RETRY_FIRST_MS; Date.now() < abandonedAt; ) {
      // Unreferenced: a process that is stopping does not wait for the database to come back.
      await sleep(waitMs, undefined, { ref: false });
      try {
        await this.keys.release(scope);
        return;
      } catch {
        waitMs = Math.min(waitMs * 2, RELEASE_RETRY_LONGEST_MS);
      }
    }
  }

  @OnJob(expireIdempotencyKeysJob)
  async expire(): Promise<void> {
    await this.keys.expire(KEPT_HOURS);
  }
}
