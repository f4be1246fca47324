import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GenerationStatus } from "@imagehub/domain";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { createBotLogger } from "../src/bot-logger.js";
import type { BotStore } from "../src/bot-store.js";
import { FINAL_RANK } from "../src/generation-view.js";
import { JsonFileStore } from "../src/json-file-store.js";
import { PostgresStore } from "../src/postgres-store.js";
import type { CompletionNoticeRecord, StatusMessageRecord } from "../src/status-records.js";
import { StatusUpdates } from "../src/status-updates.js";
import { aStep, aTarget, FakeImagehub, type Shown, statusCollectionsOf, stepOf } from "./support/fixtures.js";

const DAY_MS = 24 * 3_600_000;

/** How long the records of status messages are kept, on each store a bot may keep them in. */
describe("StatusUpdates' retention", () => {
  let database: TestDatabase;
  let folder: string;
  let stores = 0;
  const openStore: Record<string, () => Promise<BotStore>> = {
    PostgreSQL: () =>
      PostgresStore.open({ url: database.url, schema: `retention_${++stores}`, platform: "discord" }),
    "a JSON file": () => JsonFileStore.open(join(folder, `bot-${++stores}.json`)),
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    folder = await mkdtemp(join(tmpdir(), "retention-"));
  });
  afterAll(async () => {
    await database?.drop();
    await rm(folder, { recursive: true, force: true });
  });

  describe.each(Object.keys(openStore))("in %s", (kind) => {
    let store: BotStore;
    let updates: StatusUpdates;
    let clock: number;
    let shown: Shown;
    const messages = () => store.collection<StatusMessageRecord>("statusMessages");
    const notices = () => store.collection<CompletionNoticeRecord>("completionNotices");

    beforeEach(async () => {
      store = await (openStore[kind] as () => Promise<BotStore>)();
      clock = Date.now();
      shown = new Map();
      updates = new StatusUpdates({
        ...statusCollectionsOf(store),
        fetchGeneration: new FakeImagehub().fetch,
        apply: async (_target, generation) => {
          shown.set(generation.id, [...(shown.get(generation.id) ?? []), stepOf(generation)]);
        },
        announce: { notices: notices(), post: async () => {} },
        logger: createBotLogger("test", "silent"),
        retentionMs: DAY_MS,
        now: () => clock,
      });
      updates.start();
    });
    afterEach(async () => {
      await updates.stop();
      await store.close();
    });

    it("keeps a finished message's record for the retention, then forgets it and its completion notice", async () => {
      await updates.offer(aTarget(), aStep("finished", GenerationStatus.Done, 4));
      await updates.settled();
      clock += DAY_MS / 2;
      await updates.prune();
      expect(await messages().get("finished")).toMatchObject({ shownRank: FINAL_RANK });
      expect(await notices().get("finished")).toBeDefined();

      clock += DAY_MS;
      expect(await updates.prune()).toBe(1);
      expect(await messages().get("finished")).toBeUndefined();
      expect(await notices().get("finished")).toBeUndefined();
    });

    it("turns away a late delivery of a generation whose record it forgot: the message does not start over", async () => {
      const createdAt = clock;
      const target = aTarget();
      await updates.offer(target, aStep("late", GenerationStatus.Done, 4, createdAt));
      await updates.settled();
      clock += 2 * DAY_MS;
      await updates.prune();

      await updates.offer(target, aStep("late", GenerationStatus.Processing, 2, createdAt));
      await updates.settled();
      expect(shown.get("late")).toEqual([`${GenerationStatus.Done}/4`]);
      expect(await messages().get("late")).toBeUndefined();
    });

    it("follows a Retry of a generation whose record it forgot, from the start", async () => {
      const createdAt = clock;
      const target = aTarget();
      await updates.offer(target, aStep("retried", GenerationStatus.Error, 0, createdAt));
      await updates.settled();
      clock += 2 * DAY_MS;
      await updates.prune();

      await updates.restart(target, "retried");
      await updates.offer(target, aStep("retried", GenerationStatus.Processing, 1, createdAt));
      await updates.settled();
      expect(shown.get("retried")).toEqual([
        `${GenerationStatus.Error}/0`,
        `${GenerationStatus.Processing}/1`,
      ]);
    });

    it("dates the records kept from before it counted, and forgets them a retention later", async () => {
      const target = aTarget();
      await messages().set("older", { generationId: "older", target, shownRank: FINAL_RANK });
      expect(await updates.prune()).toBe(0);
      expect(await messages().get("older")).toMatchObject({ recordedAt: clock });

      clock += 2 * DAY_MS;
      expect(await updates.prune()).toBe(1);
      expect(await messages().get("older")).toBeUndefined();
    });
  });
});
