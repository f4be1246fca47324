import type { Database, PrismaClient } from "@imagehub/db";
import { type DynamicModule, Global, Module } from "@nestjs/common";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { APP_CONFIG, type AppConfig } from "./config.js";
import { LOGGER } from "./logger.js";
import { ShutdownState } from "./shutdown-state.js";

/** What the process opens before Nest starts and closes after Nest has stopped (see app.factory.ts). */
export interface Resources {
  config: AppConfig;
  logger: Logger;
  database: Database;
  redis: Redis;
  /** What every Redis key of this server starts with: REDIS_PREFIX, else one of its database's own. */
  redisPrefix: string;
}

export const DATABASE = Symbol("Database");
export const PRISMA = Symbol("PrismaClient");
export const REDIS = Symbol("Redis");
export const REDIS_PREFIX = Symbol("RedisPrefix");
export type { PrismaClient };

@Global()
@Module({})
export class CoreModule {
  static forResources(resources: Resources): DynamicModule {
    const providers = [
      { provide: APP_CONFIG, useValue: resources.config },
      { provide: LOGGER, useValue: resources.logger },
      { provide: DATABASE, useValue: resources.database },
      { provide: PRISMA, useValue: resources.database.prisma },
      { provide: REDIS, useValue: resources.redis },
      { provide: REDIS_PREFIX, useValue: resources.redisPrefix },
      { provide: ShutdownState, useValue: new ShutdownState() },
    ];
    return { module: CoreModule, providers, exports: providers.map((provider) => provider.provide) };
  }
}
