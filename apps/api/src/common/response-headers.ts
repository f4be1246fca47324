import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { errorBody } from "./error-body.js";

/**
 * Headers every answer gets: `nosniff`, so that no answer is read as another type than it says; and
 * `no-store` on answers that say nothing of caching, so that a new key, a webhook secret or a session's
 * CSRF token is never kept by a browser or a shared cache (answers that may be cached say so themselves).
 */
export async function addSecurityHeaders(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  void reply.header("x-content-type-options", "nosniff");
  if (!reply.hasHeader("cache-control")) void reply.header("cache-control", "no-store");
}

/** Node's parser errors that have an answer of their own; anything else it cannot parse is a 400. */
const CLIENT_ERROR_ANSWERS: Record<string, { statusCode: number; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { statusCode: 408, message: "the request did not arrive in time" },
  HPE_HEADER_OVERFLOW: { statusCode: 431, message: "the request's headers are too large" },
};

/**
 * Fastify's clientErrorHandler: a request Node could not parse (headers too large, a timeout, bad HTTP)
 * is answered in the spec's error body, as every other refusal, before the connection is closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const { statusCode, message } = CLIENT_ERROR_ANSWERS[error.code ?? ""] ?? {
    statusCode: 400,
    message: "the request is not valid HTTP",
  };
  const body = JSON.stringify(errorBody(statusCode, message));
  if (socket.writable) {
    socket.write(
      [
        `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        "Content-Type: application/json; charset=utf-8",
        "X-Content-Type-Options: nosniff",
        "Connection: close",
        "",
        body,
      ].join("\r\n"),
    );
  }
  socket.destroy(error);
}
