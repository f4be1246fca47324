import { Inject, Injectable } from "@nestjs/common";
import type { Redis } from "ioredis";
import { PRISMA, type PrismaClient, REDIS } from "../common/core.module.js";

@Injectable()
export class HealthRepository {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async isDatabaseUp(): Promise<boolean> {
    return this.prisma.$queryRaw`SELECT 1`.then(
      () => true,
      () => false,
    );
  }

  async isRedisUp(): Promise<boolean> {
    return this.redis.ping().then(
      (answer) => answer === "PONG",
      () => false,
    );
  }
}
