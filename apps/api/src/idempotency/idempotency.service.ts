import { createHash } from "node:crypto";
import type { Prisma } from "@imagehub/db";
import { BadRequestException, ConflictException, HttpException, Injectable, Logger } from "@nestjs/common";
import { errorBodyOf } from "../common/error-body.js";
import { RetryLaterException } from "../common/retry-later.exception.js";
import { OnJob } from "../jobs/on-job.decorator.js";
import { expireIdempotencyKeysJob } from "./idempotency.jobs.js";
import { IdempotencyRepository, type IdempotencyScope } from "./idempotency.repository.js";

/** Stripe keeps keys 24 hours. */
const KEPT_HOURS = 24;
/** A first request that recorded no answer by then died with its process: a retry may run it again. */
const ABANDONED_SECONDS = 60;
const MAX_KEY_LENGTH = 255;

/** What a request sent with a key gets to do: run, or be answered as the first request with that key was. */
/**
 * Idempotency keys with Stripe's semantics: the same key and request get the first answer again; the same
 * key with another request, or while the first still runs, gets 409. Keys are the account's own.
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger(IdempotencyService.name);

  constructor(private readonly keys: IdempotencyRepository) {}

  async start(scope: IdempotencyScope, request: { method: string; url: string; body: unknown }) {
    if (scope.key.length === 0 || scope.key.length > MAX_KEY_LENGTH) {
      throw new BadRequestException([`Idempotency-Key: must be 1 to ${MAX_KEY_LENGTH} characters`]);
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
      throw new ConflictException(
        "this Idempotency-Key was used with another request (method, path or body); use a new key",
      );
    }
    return claim;
  }

  /** Keeps the answer for the key's next requests. */
  async succeeded(scope: IdempotencyScope, statusCode: number, response: unknown): Promise<void> {
    await this.keys.record(scope, statusCode, (response ?? null) as Prisma.InputJsonValue | null);
  }

  /**
   * A refusal (4xx) is the answer too, as with Stripe; after anything else (the database or Redis away, a
   * bug) the key is released, so that the client's retry runs the request again.
   */
  async failed(scope: IdempotencyScope, error: unknown): Promise<void> {
    try {
      const status = error instanceof HttpException ? error.getStatus() : 500;
      if (status >= 400 && status < 500 && !(error instanceof RetryLaterException)) {
        const body = errorBodyOf(error as HttpException);
        await this.keys.record(scope, status, body as unknown as Prisma.InputJsonValue);
      } else {
        await this.keys.release(scope);
      }
    } catch (recordError) {
      // The database is away: the key stays taken until it counts as abandoned.
      this.logger.warn(`idempotency key not settled: ${(recordError as Error).message}`);
    }
  }

  @OnJob(expireIdempotencyKeysJob)
  async expire(): Promise<void> {
    await this.keys.expire(KEPT_HOURS);
  }
}
