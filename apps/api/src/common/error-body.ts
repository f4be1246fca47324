import { STATUS_CODES } from "node:http";
import type { ErrorBody } from "@imagehub/domain";
import { HttpException, HttpStatus } from "@nestjs/common";
import type { FastifyReply, FastifyServerOptions } from "fastify";
import {
  Conflict,
  DomainError,
  Forbidden,
  Gone,
  InvalidRequest,
  NotAuthenticated,
  NotEnoughCredits,
  NotFound,
  TooManyAttempts,
  Unavailable,
} from "./domain-errors.js";
import { RetryLaterException } from "./retry-later.exception.js";

/** A request can be wrong in thousands of ways (one per flag of a 4 KB prompt): the first ones say enough. */
export const MAX_ERROR_MESSAGES = 20;

export function errorBody(statusCode: number, message: string | string[]): ErrorBody {
  const messages = Array.isArray(message) ? message : [message];
  const unlisted = messages.length - MAX_ERROR_MESSAGES;
  return {
    statusCode,
    error: STATUS_CODES[statusCode] ?? "Error",
    message:
      unlisted > 0
        ? [...messages.slice(0, MAX_ERROR_MESSAGES), `${unlisted} more problems not listed`]
        : messages,
  };
}

/** The status that answers each kind of domain error. */
const DOMAIN_ERROR_STATUSES: [kind: abstract new (...args: never[]) => DomainError, status: number][] = [
  [InvalidRequest, HttpStatus.BAD_REQUEST],
  [NotAuthenticated, HttpStatus.UNAUTHORIZED],
  [NotEnoughCredits, HttpStatus.PAYMENT_REQUIRED],
  [Forbidden, HttpStatus.FORBIDDEN],
  [NotFound, HttpStatus.NOT_FOUND],
  [Conflict, HttpStatus.CONFLICT],
  [Gone, HttpStatus.GONE],
  [TooManyAttempts, HttpStatus.TOO_MANY_REQUESTS],
  [Unavailable, HttpStatus.SERVICE_UNAVAILABLE],
];

/** How long a refusal asks the client to wait before trying again (its Retry-After), if it does. */
export function retryAfterOf(error: unknown): number | undefined {
  return error instanceof RetryLaterException || error instanceof TooManyAttempts
    ? error.retryAfterSeconds
    : undefined;
}

/**
 * The error body of a refusal: a domain error by its kind, or a Nest HTTP exception (from a guard, a pipe
 * or an interceptor). Undefined for anything else.
 */
export function refusalBodyOf(error: unknown): ErrorBody | undefined {
  if (error instanceof HttpException) return errorBodyOf(error);
  if (!(error instanceof DomainError)) return undefined;
  const status = DOMAIN_ERROR_STATUSES.find(([kind]) => error instanceof kind)?.[1];
  return status === undefined ? undefined : errorBody(status, error.messages);
}

/** The error body of a Nest HTTP exception: its own message (or messages), else the exception's. */
function errorBodyOf(exception: HttpException): ErrorBody {
  const response = exception.getResponse();
  const message =
    typeof response === "object" && response !== null && "message" in response
      ? (response as { message: string | string[] }).message
      : exception.message;
  return errorBody(exception.getStatus(), message);
}

/**
 * Fastify answers a malformed URL (bad percent-encoding, a parameter too long) before any route or
 * exception filter runs: this makes that answer the spec's error body too.
 */
export const answerFrameworkError: NonNullable<FastifyServerOptions["frameworkErrors"]> = (
  error,
  _request,
  reply,
) => {
  const statusCode = error.statusCode ?? 400;
  // The option's type is generic over route schemas this reply has none of.
  void (reply as FastifyReply).code(statusCode).send(errorBody(statusCode, error.message));
};
