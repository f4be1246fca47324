import { type BaseLogger, type DestinationStream, type Logger as PinoLogger, pino } from "pino";

/** What chat-core logs through: pino's methods, e.g. `logger.warn({ teamId }, "message")`. */
export type Logger = Pick<BaseLogger, "info" | "warn" | "error">;

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Fields that may hold secrets; pino replaces them wherever they appear in a log line. */
const REDACTED_PATHS = ["apiKey", "key", "secret", "token", "headers.authorization"];

/** A bot's logs: pino JSON lines on stdout (or on `destination`, for tests), as the API logs. */
export function createBotLogger(name: string, level: LogLevel, destination?: DestinationStream): PinoLogger {
  return pino({ name, level, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } }, destination);
}
