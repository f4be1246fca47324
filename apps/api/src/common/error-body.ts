import { STATUS_CODES } from "node:http";
import type { ErrorBody } from "@imagehub/domain";
import type { HttpException } from "@nestjs/common";
import type { FastifyReply, FastifyServerOptions } from "fastify";

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

/** The error body of a Nest HTTP exception: its own message (or messages), else the exception's. */
export function errorBodyOf(exception: HttpException): ErrorBody {
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
