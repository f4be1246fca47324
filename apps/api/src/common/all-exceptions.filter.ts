import type { ErrorBody } from "@imagehub/domain";
import { type ArgumentsHost, Catch, type ExceptionFilter } from "@nestjs/common";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { isDatabaseUnavailable } from "./database-unavailable.js";
import { errorBody, refusalBodyOf, retryAfterOf } from "./error-body.js";

/** Clients are told to come back after this long while the database is away. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Every error leaves as the spec's error body: the domain's errors (each kind with its status) and Nest's
 * HTTP exceptions (from guards, pipes and interceptors), Fastify's own errors (malformed JSON, payload too large, bad content type), the database
 * being away (503 with Retry-After) and anything unexpected, which is logged and answered 500 without
 * details.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.answer(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }

  /** Also Fastify's error handler, for errors raised before a route runs. */
  answer(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const body = this.toErrorBody(exception, request);
    const retryAfterSeconds = retryAfterOf(exception);
    if (retryAfterSeconds !== undefined) {
      void reply.header("retry-after", String(retryAfterSeconds));
    } else if (body.statusCode === 503) {
      void reply.header("retry-after", String(DATABASE_RETRY_AFTER_SECONDS));
    }
    void reply.status(body.statusCode).send(body);
  }

  private toErrorBody(exception: unknown, request: FastifyRequest): ErrorBody {
    const refusal = refusalBodyOf(exception);
    if (refusal) return refusal;
    const fastifyStatus = (exception as { statusCode?: unknown }).statusCode;
    if (typeof fastifyStatus === "number" && fastifyStatus >= 400 && fastifyStatus < 500) {
      return errorBody(fastifyStatus, (exception as Error).message);
    }
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn({ reqId: request.id, err: exception }, "database unavailable");
      return errorBody(503, "the database is unavailable; retry later");
    }
    this.logger.error({ err: exception, reqId: request.id }, "unhandled error");
    return errorBody(500, "Internal server error");
  }
}
