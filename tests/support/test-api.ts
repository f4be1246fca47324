import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Type } from "@nestjs/common";
import type { NestFastifyApplication } from "@nestjs/platform-fastify";
import type { DestinationStream } from "pino";
import { AccountsService, type NewAccount } from "../../apps/api/src/accounts/accounts.service.js";
import { createHttpApplication, type OpenResources, openResources } from "../../apps/api/src/app.factory.js";
import { loadConfig } from "../../apps/api/src/common/config.js";
import { createLogger } from "../../apps/api/src/common/logger.js";
import { JobRepository } from "../../apps/api/src/jobs/job.repository.js";
import { TEST_REDIS_URL, uniqueName } from "./environment.js";
import { WITHOUT_LIMITS } from "./start-command.mjs";
import { createTestDatabase, type TestDatabase } from "./test-database.js";

export interface TestApi {
  baseUrl: string;
  app: NestFastifyApplication;
  resources: OpenResources;
  database: TestDatabase;
  /** A new account with one key; the key is what requests send. */
  createAccount(
    overrides?: Partial<NewAccount>,
  ): Promise<{ apiKey: string; accountId: string; apiKeyId: string }>;
  request(path: string, init?: RequestInit & { apiKey?: string; json?: unknown }): Promise<Response>;
  /** Pauses the generations queue: new generations stay queued until the answer is called. */
  holdGenerations(): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * The real API over real HTTP: its own PostgreSQL database, its own Redis key prefix, a random port,
 * without rate limits unless `env` sets them.
 * `extraModules` lets a test mount probe routes next to the real ones.
 */
export async function startTestApi(
  options: { env?: NodeJS.ProcessEnv; extraModules?: Type[]; logDestination?: DestinationStream } = {},
): Promise<TestApi> {
  const database = await createTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), "imagehub-test-"));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: uniqueName("test"),
    PORT: "0",
    LOG_LEVEL: "silent",
    ...WITHOUT_LIMITS,
    ...options.env,
  });
  const resources = await openResources(config, createLogger(config.logLevel, options.logDestination));
  const app = await createHttpApplication(resources, options.extraModules);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const baseUrl = (await app.getUrl()).replace("[::1]", "127.0.0.1");
  let accounts = 0;
  return {
    baseUrl,
    app,
    resources,
    database,
    async createAccount(overrides = {}) {
      accounts += 1;
      const created = await app.get(AccountsService).createAccountWithKey({
        email: `user${accounts}@example.test`,
        name: `User ${accounts}`,
        plan: "standard",
        credits: { f_images: 10, f_images_print: 5 },
        keyName: "test",
        actor: "test",
        ...overrides,
      });
      return { apiKey: created.key, accountId: created.account.id, apiKeyId: created.apiKey.id };
    },
    request(path, { apiKey, json, headers, ...init } = {}) {
      return fetch(`${baseUrl}${path}`, {
        ...init,
        headers: {
          ...(apiKey && { "api-key": apiKey }),
          ...(json !== undefined && { "content-type": "application/json" }),
          ...headers,
        },
        ...(json !== undefined && { body: JSON.stringify(json) }),
      });
    },
    async holdGenerations() {
      const queue = app
        .get(JobRepository)
        .allQueues()
        .find((candidate) => candidate.name === "generations");
      if (!queue) throw new Error("no generations queue");
      await queue.pause();
      return () => queue.resume();
    },
    async close() {
      await app.close();
      await resources.close();
      await database.drop();
      // A rendition a request started may still land in the folder as it goes: rm tries again (ENOTEMPTY).
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}
