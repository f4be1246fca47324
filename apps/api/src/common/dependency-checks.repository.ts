import { setTimeout as delay } from "node:timers/promises";
import { Inject, Injectable } from "@nestjs/common";
import type { Redis } from "ioredis";
import { PRISMA, type PrismaClient, REDIS } from "./core.module.js";

/**
 * A dependency that does not answer within this time is down. Without a bound, a Redis outage would hang
 * the check: the shared connection queues commands until Redis is back (BullMQ needs it to).
 */
const CHECK_TIMEOUT_MS = 2000;

@Injectable()
export class DependencyChecksRepository {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  isDatabaseUp(): Promise<boolean> {
    return answersInTime(this.prisma.$queryRaw`SELECT 1`.then(() => true));
  }

  isRedisUp(): Promise<boolean> {
    return answersInTime(this.redis.ping().then((answer) => answer === "PONG"));
  }
}

async function answersInTime(check: Promise<boolean>): Promise<boolean> {
  const timeout = new AbortController();
  try {
    return await Promise.race([check, delay(CHECK_TIMEOUT_MS, false, { signal: timeout.signal })]);
  } catch {
    return false;
  } finally {
    timeout.abort();
  }
}
