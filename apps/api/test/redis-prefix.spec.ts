import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { openResources } from "../src/app.factory.js";
import { createLogger } from "../src/common/logger.js";
import { JobRepository } from "../src/jobs/job.repository.js";

/** The prefix of the keys the server's queues use in Redis. */
const queuePrefixOf = (api: TestApi) => api.app.get(JobRepository).allQueues()[0]?.opts.prefix;

describe("the default Redis key prefix", () => {
  let first: TestApi;
  let second: TestApi;
  beforeAll(async () => {
    // REDIS_PREFIX empty: unset, as in `REDIS_PREFIX= npm start`.
    [first, second] = await Promise.all([
      startTestApi({ env: { ROLE: "api", REDIS_PREFIX: "" } }),
      startTestApi({ env: { ROLE: "api", REDIS_PREFIX: "" } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
  });

  it("differs between servers of different databases sharing one Redis", () => {
    expect(queuePrefixOf(first)).toMatch(/^imagehub-[0-9a-f]{12}$/);
    expect(queuePrefixOf(second)).toMatch(/^imagehub-[0-9a-f]{12}$/);
    expect(queuePrefixOf(first)).not.toBe(queuePrefixOf(second));
  });

  it("is the same for every process of one database", async () => {
    const again = await openResources(first.resources.config, createLogger("silent"));
    try {
      expect(again.redisPrefix).toBe(queuePrefixOf(first));
    } finally {
      await again.close();
    }
  });
});
