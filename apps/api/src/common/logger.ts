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
const SECRET_QUERY_PARAMETERS = new Set(["signature", "api-key", "apikey", "token"]);

/** Each credential's value replaced, its name matched as the server reads it (`sig%6Eature` is `signature`). */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf("?");
  if (queryAt < 0) return url;
  const fragmentAt = url.indexOf("#", queryAt);
  const queryEnd = fragmentAt < 0 ? url.length : fragmentAt;
  const query = url
    .slice(queryAt + 1, queryEnd)
    .split("&")
    .map((parameter) => {
      const separator = parameter.indexOf("=");
      const name = separator < 0 ? parameter : parameter.slice(0, separator);
      return SECRET_QUERY_PARAMETERS.has(decodedName(name).toLowerCase()) ? `${name}=[redacted]` : parameter;
    })
    .join("&");
  return `${url.slice(0, queryAt + 1)}${query}${url.slice(queryEnd)}`;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll("+", " "));
  } catch {
    return name;
  }
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
