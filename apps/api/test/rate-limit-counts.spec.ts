import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL, uniqueName } from "../../../tests/support/environment.js";
import { until } from "../../../tests/support/until.js";
import { FastRedis } from "../src/common/fast-redis.js";
import { RateLimitRepository } from "../src/common/rate-limit.repository.js";

/** Two repositories (two API processes) on one Redis, and the count scripts Redis ran for their prefix. */
describe("RateLimitRepository", () => {
  const prefix = uniqueName("rate_limit_spec");
  const redis = new Redis(TEST_REDIS_URL);
  let monitor: Redis;
  const scriptsRun: string[][] = [];
  const connections = [new FastRedis(redis), new FastRedis(redis)] as const;
  const [first, second] = connections.map((connection) => new RateLimitRepository(connection, prefix)) as [
    RateLimitRepository,
    RateLimitRepository,
  ];
  const count = (counter: string, perWindow = 3, isCountedLocally = false) => ({
    counter,
    perWindow,
    windowMs: 60_000,
    isCountedLocally,
  });

  beforeAll(async () => {
    await Promise.all(connections.map((connection) => connection.onApplicationBootstrap()));
    monitor = await redis.monitor();
    monitor.on("monitor", (_time: string, args: string[]) => {
      const isCount = args[0]?.toLowerCase() === "evalsha" || args[0]?.toLowerCase() === "eval";
      if (isCount && args.some((arg) => arg.startsWith(`${prefix}:`))) scriptsRun.push(args);
    });
  });
  afterAll(async () => {
    first.onApplicationShutdown();
    second.onApplicationShutdown();
    for (const connection of connections) connection.onApplicationShutdown();
    monitor.disconnect();
    redis.disconnect();
  });

  /** Every script run so far has reached the monitor: a marker sent after them comes back last. */
  async function scriptsSoFar(): Promise<string[][]> {
    const marker = `${prefix}:marker:${Math.random()}`;
    const seen = new Promise<void>((resolve) =>
      monitor.on("monitor", (_time: string, args: string[]) => args.includes(marker) && resolve()),
    );
    await redis.get(marker);
    await seen;
    return scriptsRun.splice(0);
  }

  it("counts the requests of one turn in one round trip, each in its own place in the count", async () => {
    await scriptsSoFar();
    const states = await Promise.all(Array.from({ length: 5 }, () => first.count(count("display:a"))));
    expect(states.map((state) => state.remaining)).toEqual([2, 1, 0, 0, 0]);
    expect(states.map((state) => state.isExceeded)).toEqual([false, false, false, true, true]);
    expect(states.every((state) => state.resetSeconds === 60)).toBe(true);
    expect(await scriptsSoFar()).toHaveLength(1);
  });

  it("counts several counters in that one round trip, each against its own budget", async () => {
    await scriptsSoFar();
    const [a, b, c] = await Promise.all([
      first.count(count("display:b", 1)),
      first.count(count("search:b", 2)),
      first.count(count("search:b", 2)),
    ]);
    expect([a?.remaining, b?.remaining, c?.remaining]).toEqual([0, 1, 0]);
    expect([a?.isExceeded, b?.isExceeded, c?.isExceeded]).toEqual([false, false, false]);
    expect(await scriptsSoFar()).toHaveLength(1);
  });

  it("shares a counter between processes, whose counts add up", async () => {
    const [one, two] = await Promise.all([first.count(count("general:c")), second.count(count("general:c"))]);
    expect([one?.remaining, two?.remaining].sort()).toEqual([1, 2]);
    expect((await first.count(count("general:c"))).remaining).toBe(0);
    expect((await second.count(count("general:c"))).isExceeded).toBe(true);
  });

  it("refuses a counter over its budget without a round trip until its window ends", async () => {
    await Promise.all(Array.from({ length: 4 }, () => first.count(count("display:d"))));
    await scriptsSoFar();
    const refused = await first.count(count("display:d"));
    expect(refused).toMatchObject({ remaining: 0, isExceeded: true });
    expect(await scriptsSoFar()).toHaveLength(0);
  });

  it("counts a locally counted budget here once its total is known, and adds it to Redis soon after", async () => {
    const first10 = count("display:e", 10, true);
    expect((await first.count(first10)).remaining).toBe(9);
    await scriptsSoFar();
    const local = await Promise.all(Array.from({ length: 4 }, () => first.count(first10)));
    expect(local.map((state) => state.remaining)).toEqual([8, 7, 6, 5]);
    // Sent together a little later: Redis then holds every request, and the other process sees them.
    await until(async () => Number(await redis.get(`${prefix}:rate-limit:display:e`)) === 5, {
      timeoutMs: 5_000,
      what: "the local counts added to Redis",
    });
    expect(await scriptsSoFar()).toHaveLength(1);
    expect((await second.count(first10)).remaining).toBe(4);
  });

  it("counts each locally counted request once, answered here or sent to Redis", async () => {
    const three = count("display:g", 3, true);
    const states = [];
    for (let index = 0; index < 4; index++) states.push(await first.count(three));
    expect(states.map((state) => state.isExceeded)).toEqual([false, false, false, true]);
    await until(async () => Number(await redis.get(`${prefix}:rate-limit:display:g`)) === 4, {
      timeoutMs: 5_000,
      what: "the local counts added to Redis",
    });
  });

  it("refuses a locally counted budget once this process has counted it spent", async () => {
    const two = count("display:f", 2, true);
    await first.count(two);
    const [second2, third] = await Promise.all([first.count(two), first.count(two)]);
    expect([second2.isExceeded, third.isExceeded]).toEqual([false, true]);
  });
});
