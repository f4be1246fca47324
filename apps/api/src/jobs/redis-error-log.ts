import type { Logger } from "@nestjs/common";

/** While Redis is away every connection fails over and over: one line per source every 10 s is enough. */
const QUIET_MS = 10_000;

/** An `error` listener for BullMQ queues and workers (without one, BullMQ prints each error in full). */
export function redisErrorLog(logger: Logger, source: string): (error: Error) => void {
  let lastLogged = 0;
  return (error) => {
    if (Date.now() - lastLogged < QUIET_MS) return;
    lastLogged = Date.now();
    logger.warn(`${source}: ${error.message} (BullMQ keeps retrying)`);
  };
}
