import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger as PinoLogger } from "pino";

/**
 * Bolt's logger interface over the bot's pino logger, so that Bolt's own messages are JSON lines too.
 * Bolt logs like the console (`logger.error("text:", error)`): errors become pino's `err` field.
 */
export class BoltPinoLogger implements BoltLogger {
  private readonly logger: PinoLogger;

  constructor(logger: PinoLogger, level: LogLevel) {
    this.logger = logger.child({ component: "bolt" }, { level });
  }

  debug(...message: unknown[]): void {
    this.write(LogLevel.DEBUG, message);
  }
  info(...message: unknown[]): void {
    this.write(LogLevel.INFO, message);
  }
  warn(...message: unknown[]): void {
    this.write(LogLevel.WARN, message);
  }
  error(...message: unknown[]): void {
    this.write(LogLevel.ERROR, message);
  }
  setLevel(level: LogLevel): void {
    this.logger.level = level;
  }
  getLevel(): LogLevel {
    return this.logger.level as LogLevel;
  }
  /** pino names every line already (the bot's name, component bolt). */
  setName(): void {}

  private write(level: LogLevel, message: unknown[]): void {
    const error = message.find((part): part is Error => part instanceof Error);
    const text = message
      .filter((part) => part !== error)
      .map((part) => (typeof part === "string" ? part : JSON.stringify(part)))
      .join(" ");
    this.logger[level](error ? { err: error } : {}, text);
  }
}
