import "reflect-metadata";
import cluster from "node:cluster";
import type { INestApplicationContext } from "@nestjs/common";
import type { NestFastifyApplication } from "@nestjs/platform-fastify";
import { SignInLinksService } from "./account-area/sign-in-links.service.js";
import { AccountsService } from "./accounts/accounts.service.js";
import { ApiKeyAuthService } from "./accounts/api-key-auth.service.js";
import { runsStartTasks, superviseApiProcesses } from "./api-processes.js";
import { createHttpApplication, createWorkerContext, drainHttpServer, openResources } from "./app.factory.js";
import { seedCatalogueIfEmpty } from "./catalogue/seed/catalogue-seeder.js";
import { ConfigError, loadConfig } from "./common/config.js";
import { createLogger } from "./common/logger.js";
import { ensureDemoAccount } from "./embedded/demo-account.js";
import { holdFreePort } from "./embedded/held-port.js";
import { ensureRedis, RedisUnavailableError } from "./embedded/local-redis.js";
import { makeDataDirPrivate } from "./embedded/private-data-dir.js";

/**
 * The one entry point. ROLE=api serves HTTP, ROLE=worker runs the queue workers, ROLE=all (the default,
 * and the embedded mode) does both in one process. With API_PROCESSES above 1, this process supervises
 * that many API processes, each of which runs this entry point too.
 */
async function main(): Promise<void> {
  const requested = loadConfig(process.env);
  if (requested.apiProcesses > 1 && cluster.isPrimary) {
    await superviseApiProcesses(requested, createLogger(requested.logLevel));
    return;
  }
  const heldPort =
    requested.http.port === 0 && requested.role !== "worker"
      ? await holdFreePort(requested.http.host)
      : undefined;
  const config = heldPort ? loadConfig({ ...process.env, PORT: String(heldPort.port) }) : requested;
  const logger = createLogger(config.logLevel);
  await makeDataDirPrivate(config.dataDir);
  const localRedis = await ensureRedis(config, logger);
  const resources = await openResources(config, logger);
  const app: INestApplicationContext =
    config.role === "worker" ? await createWorkerContext(resources) : await createHttpApplication(resources);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests and jobs");
    // Ctrl-C in a terminal has no load balancer to wait for; an orchestrator's SIGTERM does.
    const preStopMs = signal === "SIGTERM" && config.role !== "worker" ? config.shutdownPreStopMs : 0;
    const forceExit = setTimeout(() => {
      logger.error("shutdown grace period elapsed; exiting");
      process.exit(1);
    }, preStopMs + config.shutdownGraceMs);
    forceExit.unref();
    if (config.role !== "worker") {
      await drainHttpServer(app as NestFastifyApplication, { preStopMs, graceMs: config.shutdownGraceMs });
    }
    await app.close();
    await resources.close();
    await localRedis?.stop();
    process.exit(0);
  };
  process.once("SIGINT", (signal) => void stop(signal));
  process.once("SIGTERM", (signal) => void stop(signal));

  const doesStartTasks = runsStartTasks();
  const seeded = doesStartTasks
    ? await seedCatalogueIfEmpty(resources.database.prisma, config.catalogue.seedCount)
    : 0;
  if (seeded > 0) logger.info({ images: seeded }, "seeded the catalogue");
  const demo =
    doesStartTasks && config.hasDemoAccount
      ? await ensureDemoAccount(config.dataDir, app.get(AccountsService), app.get(ApiKeyAuthService))
      : undefined;
  if (config.role === "worker") {
    logger.info("worker started");
    return;
  }
  await heldPort?.release();
  await (app as NestFastifyApplication).listen({ host: config.http.host, port: config.http.port });
  // The banner once per start, from the supervisor's first process.
  if (!doesStartTasks) return;
  const base = config.http.publicBaseUrl;
  // A new one-time link at each start: whoever reads the console can open the web area as the demo account.
  const demoLink = demo && (await app.get(SignInLinksService).create(demo.email, "sign-in"));
  const lines = [
    "",
    `  imagehub is running (${config.role}, ${resources.database.kind})`,
    `  Web app:        ${base}/`,
    `  API:            ${base}/v1`,
    `  API reference:  ${base}/doc`,
    ...(demo
      ? [
          `  Demo API key:   ${demo.apiKey}`,
          `  Try it:         curl -H "api-key: ${demo.apiKey}" ${base}/v1/api-keys/check`,
          `  Demo sign-in:   ${demoLink?.url} (one-time, for a day)`,
        ]
      : []),
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

main().catch((error: unknown) => {
  // Configuration and Redis problems are the user's to fix: one clear line, no stack.
  if (error instanceof ConfigError || error instanceof RedisUnavailableError) {
    process.stderr.write(`imagehub: ${error.message}\n`);
  } else {
    process.stderr.write(
      `imagehub failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
