import { createHash, randomUUID } from "node:crypto";
import type { Server as HttpServer } from "node:http";
import { Server as NetServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { type Database, openDatabase } from "@imagehub/db";
import type { INestApplicationContext, Type } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import { FastifyAdapter, type NestFastifyApplication } from "@nestjs/platform-fastify";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { AppModule } from "./app.module.js";
import { AllExceptionsFilter } from "./common/all-exceptions.filter.js";
import type { AppConfig } from "./common/config.js";
import type { Resources } from "./common/core.module.js";
import { answerFrameworkError } from "./common/error-body.js";
import { FailureDelayRepository } from "./common/failure-delay.repository.js";
import { acceptEmptyJsonBodies } from "./common/json-body-parser.js";
import { NestPinoLogger } from "./common/logger.js";
import { serializeAnswer } from "./common/operation.interceptor.js";
import { runInRequest } from "./common/request-context.js";
import { addSecurityHeaders, answerClientError } from "./common/response-headers.js";
import { ShutdownState } from "./common/shutdown-state.js";
import { JobRepository } from "./jobs/job.repository.js";
import { MetricsService } from "./metrics/metrics.service.js";
import { mountQueueDashboard } from "./queue-dashboard/queue-dashboard.js";
import { serveWebApp } from "./web-app/web-app.routes.js";

export interface OpenResources extends Resources {
  close(): Promise<void>;
}

/** Opens (and migrates) the database and connects to Redis; both outlive the Nest application. */
export async function openResources(config: AppConfig, logger: Logger): Promise<OpenResources> {
  const database = await openDatabase({
    ...config.database,
    // LOG_LEVEL=trace logs every statement with its parameters (what bench:search replays in pgbench).
    ...(logger.isLevelEnabled("trace") && {
      onQuery: (query) =>
        logger.trace({ sql: query.sql, params: query.params, durationMs: query.durationMs }, "sql"),
    }),
  });
  const applied = await database.migrate();
  if (applied.length > 0) logger.info({ migrations: applied }, "database migrated");
  // Prisma's first statement loads its query compiler, which takes seconds on a busy machine: paid here
  // rather than by the first health check, which would report the database down.
  await database.prisma.$queryRaw`SELECT 1`;
  const redisPrefix = config.redis.prefix ?? (await defaultRedisPrefix(database));
  // BullMQ requires maxRetriesPerRequest: null on connections its workers block on.
  const redis = new Redis(config.redis.url, { maxRetriesPerRequest: null, lazyConnect: true });
  await redis.connect();
  return {
    config,
    logger,
    database,
    redis,
    redisPrefix,
    async close() {
      await database.close();
      redis.disconnect();
    },
  };
}

/**
 * `imagehub-` and a digest of what names this database: its name and the id the migration runner drew for
 * its first migration (fixed for the database's life, different in every other database, a copy made
 * from it as a template included: its name differs).
 */
async function defaultRedisPrefix(database: Database): Promise<string> {
  const [identity] = await database.prisma.$queryRaw<{ name: string; firstMigration: string | null }[]>`
    SELECT current_database() AS name,
      (SELECT id FROM "_prisma_migrations" ORDER BY started_at, migration_name LIMIT 1) AS "firstMigration"`;
  const digest = createHash("sha256").update(`${identity?.name}\n${identity?.firstMigration}`).digest("hex");
  return `imagehub-${digest.slice(0, 12)}`;
}

/** `extraModules` is for tests that mount probe routes beside the real ones. */
export async function createHttpApplication(
  resources: Resources,
  extraModules: Type[] = [],
): Promise<NestFastifyApplication> {
  const { config, logger } = resources;
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    bodyLimit: config.http.bodyLimitBytes,
    trustProxy: config.http.trustProxy,
    requestIdHeader: "x-request-id",
    genReqId: () => randomUUID(),
    // Fastify answers a malformed URL (bad percent-encoding) before any route or filter: in the spec's body too.
    frameworkErrors: answerFrameworkError,
    // …and a request Node could not parse at all (431, 408), before Fastify has one.
    clientErrorHandler: answerClientError,
    // Closing is drainHttpServer's: by then every connection has been told to close, or is idle.
    forceCloseConnections: "idle",
    // A request whose headers and body are not all in by then gets 408 (trickling bodies hold no socket).
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    // Node enforces those limits on this beat (30 s by default, which would stretch them).
    http: { connectionsCheckingInterval: Math.min(1_000, config.http.requestTimeoutMs) },
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forResources(resources, extraModules),
    adapter,
    {
      logger: new NestPinoLogger(logger),
      abortOnError: false,
    },
  );
  // Fastify's own errors (malformed JSON, 413, 415) too: Nest's error handler hands them to this filter.
  app.useGlobalFilters(new AllExceptionsFilter(logger));
  const fastify = app.getHttpAdapter().getInstance();
  fastify.setReplySerializer(serializeAnswer);
  app.getHttpServer().headersTimeout = Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs);
  acceptEmptyJsonBodies(app, config.http.bodyLimitBytes);
  // Everything the request causes runs in its context, so that every log line it writes carries its id.
  fastify.addHook("onRequest", (request, _reply, done) => runInRequest(request.id, done));
  fastify.addHook("onSend", addSecurityHeaders);
  const shutdown = app.get(ShutdownState);
  fastify.addHook("onSend", async (request, reply) => {
    void reply.header("x-request-id", request.id);
    // Stopping: each answer closes its connection, so that clients open a new one elsewhere.
    if (shutdown.isStopping || !fastify.server.listening) void reply.header("connection", "close");
  });
  const metrics = app.get(MetricsService);
  fastify.addHook("onResponse", async (request, reply) => {
    // The route's pattern, never the path itself: one series per route, whatever ids it is called with.
    const route = request.routeOptions.url ?? "unmatched";
    metrics.requestServed(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
  if (config.queueDashboard) {
    void mountQueueDashboard(fastify, app.get(JobRepository).allQueues(), {
      adminToken: config.queueDashboard.adminToken,
      isSecure: config.http.publicBaseUrl.startsWith("https:"),
      failures: app.get(FailureDelayRepository),
    });
  }
  await serveWebApp(app, config.webArea.webDir);
  await app.init();
  return app;
}

export async function createWorkerContext(resources: Resources): Promise<INestApplicationContext> {
  return NestFactory.createApplicationContext(AppModule.forResources(resources), {
    logger: new NestPinoLogger(resources.logger),
    abortOnError: false,
  });
}

/**
 * Stops an HTTP server without cutting a request. First, for `preStopMs`, it goes on accepting connections
 * while /health says it is stopping and every answer closes its connection: the load balancer stops
 * sending it new ones, and connections the kernel has completed but the server not yet accepted (the
 * listen backlog) are taken and answered rather than reset when the socket closes. Then it stops accepting connections and answers every request
 * it has read or still reads with `Connection: close` (the onSend hook), after which the connection closes.
 * A connection left idle closes at its keep-alive timeout, which its client was told (`Keep-Alive:
 * timeout=…`) and keeps clear of: closing it any sooner (`http.Server.close` does) resets a request already
 * on its way, which a busy client writes before it reads the close. Waits, at most `graceMs`, until every
 * connection is gone.
 */
export async function drainHttpServer(
  app: NestFastifyApplication,
  { preStopMs, graceMs }: { preStopMs: number; graceMs: number },
): Promise<void> {
  app.get(ShutdownState).isStopping = true;
  await sleep(preStopMs);
  const server: HttpServer = app.getHttpServer();
  NetServer.prototype.close.call(server);
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && (await openConnections(server)) > 0) await sleep(50);
}

function openConnections(server: HttpServer): Promise<number> {
  return new Promise((resolve) => server.getConnections((_, count) => resolve(count)));
}
