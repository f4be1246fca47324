import type { LoggerService } from "@nestjs/common";
import { type DestinationStream, type Logger, pino } from "pino";

/** Fields that may hold secrets; pino replaces them wherever they appear in a log line. */
const REDACTED_PATHS = ["req.headers['api-key']", "req.headers.authorization", "apiKey", "key", "secret"];

/** JSON lines on stdout, or on `destination` (tests read what was logged). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } }, destination);
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
