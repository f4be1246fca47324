import type { LoggerService } from "@nestjs/common";
import { type DestinationStream, type Logger, pino } from "pino";
import { currentRequestId } from "./request-context.js";

/** Fields that may hold secrets; pino replaces them wherever they appear in a log line. */
const REDACTED_PATHS = ["req.headers['api-key']", "req.headers.authorization", "apiKey", "key", "secret"];

/**
 * JSON lines on stdout, or on `destination` (tests read what was logged). A line written while serving a
 * request carries its id as `reqId`, whoever writes it: Fastify's request logger already binds it, every
 * other logger (Nest's, the services') gets it from the request's context.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      serializers: { req: serializeRequest },
      mixin(_fields, _level, logger) {
        const requestId = currentRequestId();
        return requestId === undefined || "reqId" in logger.bindings() ? {} : { reqId: requestId };
      },
    },
    destination,
  );
}

/** What Fastify's request log line says of a request, as its own serializer does, the URL redacted. */
function serializeRequest(request: {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}) {
  return {
    method: request.method,
    url: request.url === undefined ? undefined : redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Query parameters that are credentials: a signed download link works for whoever reads the log. */
const SECRET_QUERY_PARAMETER = /([?&](?:signature|api-key|apiKey|token)=)[^&#]*/gi;

function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMETER, "$1[redacted]");
}

/** Routes Nest's own messages (start-up, module wiring) into the same pino logger. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
  fatal(message: unknown, context?: string) {
    this.logger.fatal({ context }, String(message));
  }
}

export const LOGGER = Symbol("Logger");
