import { GenerationStatus, type ImageGeneration } from "@imagehub/domain";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { until } from "../../../tests/support/until.js";
import { createBotLogger } from "../src/bot-logger.js";
import type { ChatTarget } from "../src/chat-target.js";
import { PostgresStore } from "../src/postgres-store.js";
import type { StatusUpdatesOptions } from "../src/status-records.js";
import {
  FormRefusedError,
  type MessageForm,
  MessageGoneError,
  PermissionMissingError,
} from "../src/status-refusals.js";
import { StatusUpdates } from "../src/status-updates.js";
import { aStep, aTarget, FakeImagehub, type Shown, statusCollectionsOf, stepOf } from "./support/fixtures.js";

const DAY_MS = 24 * 3_600_000;

/** The bots' state in a PostgreSQL schema of its own, shared by the replicas each test starts. */
describe("StatusUpdates on PostgreSQL", () => {
  let database: TestDatabase;
  const stores: PostgresStore[] = [];
  const replicas: StatusUpdates[] = [];
  let warnings: string[];

  /** One bot process: its own queue over the shared schema. `apply` stands for the platform. */
  async function aReplica(apply: StatusUpdatesOptions["apply"], options: Partial<StatusUpdatesOptions> = {}) {
    const store = await PostgresStore.open({ url: database.url, schema: "imagehub_bots", platform: "slack" });
    stores.push(store);
    const updates = new StatusUpdates({
      ...statusCollectionsOf(store),
      apply,
      fetchGeneration: new FakeImagehub().fetch,
      retentionMs: DAY_MS,
      ...options,
      logger: createBotLogger("test", "warn", {
        write: (line: string) => {
          warnings.push(JSON.parse(line).msg);
        },
      }),
      pollIntervalMs: 50,
    });
    updates.start();
    replicas.push(updates);
    return updates;
  }
  const recording = (shown: Shown) => async (_target: ChatTarget, generation: ImageGeneration) => {
    shown.set(generation.id, [...(shown.get(generation.id) ?? []), stepOf(generation)]);
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  beforeEach(() => {
    warnings = [];
  });
  afterEach(async () => {
    // Each test's replicas stop with it: a replica left running would take the next test's updates.
    for (const replica of replicas.splice(0)) await replica.stop();
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await database?.drop();
  });

  it("keeps its state in its own schema, migrated by packages/db's runner", async () => {
    await aReplica(async () => {});
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'imagehub_bots' ORDER BY 1",
    );
    await client.end();
    expect(rows.map((row) => row.table_name)).toEqual(["_prisma_migrations", "bot_records"]);
  });

  it("coalesces: while the channel is busy, the latest state replaces the one waiting", async () => {
    const shown: Shown = new Map();
    let answer = () => {};
    const platformAnswered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const updates = await aReplica(async (target, generation) => {
      if (generation.id === "busy") await platformAnswered;
      await recording(shown)(target, generation);
    });
    const channel = "C-coalesce";
    await updates.offer(aTarget(channel), aStep("busy", GenerationStatus.Processing, 0));
    const target = aTarget(channel);
    for (let images = 0; images <= 4; images += 1) {
      await updates.offer(target, aStep("waiting", GenerationStatus.Processing, images));
    }
    await updates.offer(target, aStep("waiting", GenerationStatus.Done, 4));

    answer();
    await updates.settled();
    expect(shown.get("waiting")).toEqual([`${GenerationStatus.Done}/4`]);
    expect(updates.editsSent.get("waiting")).toBe(1);
  });

  it("never moves a message backwards, across a restart", async () => {
    const before: Shown = new Map();
    const first = await aReplica(recording(before));
    const target = aTarget();
    await first.offer(target, aStep("restarted", GenerationStatus.Done, 4));
    await first.settled();
    await first.stop();

    const after: Shown = new Map();
    const restarted = await aReplica(recording(after));
    // A progress delivery imagehub retried late, after the bot came back.
    await restarted.offer(target, aStep("restarted", GenerationStatus.Processing, 2));
    await restarted.settled();
    expect(before.get("restarted")).toEqual([`${GenerationStatus.Done}/4`]);
    expect(after.get("restarted")).toBeUndefined();
  });

  it("shares the state between two replicas: each step shown once, in order, whichever received it", async () => {
    const shown: Shown = new Map();
    const [one, two] = [await aReplica(recording(shown)), await aReplica(recording(shown))];
    const target = aTarget("C-replicas");
    const steps = [1, 2, 3, 4].map((images) => aStep("shared", GenerationStatus.Processing, images));
    for (const [index, step] of steps.entries()) {
      await (index % 2 === 0 ? one : two).offer(target, step);
      await Promise.all([one.settled(), two.settled()]);
    }
    await two.offer(target, aStep("shared", GenerationStatus.Done, 4));
    await one.offer(target, aStep("shared", GenerationStatus.Processing, 3));
    await Promise.all([one.settled(), two.settled()]);

    expect(shown.get("shared")).toEqual([
      ...[1, 2, 3, 4].map((images) => `${GenerationStatus.Processing}/${images}`),
      `${GenerationStatus.Done}/4`,
    ]);
  });

  it("ends a message's updates on a refusal that will not heal, without failing the offer", async () => {
    let tries = 0;
    const updates = await aReplica(async () => {
      tries += 1;
      throw new MessageGoneError("Discord 50001: Missing Access");
    });
    const target = aTarget("C-hidden");
    await updates.offer(target, aStep("hidden", GenerationStatus.Processing, 1));
    await updates.settled();
    await updates.offer(target, aStep("hidden", GenerationStatus.Done, 4));
    await updates.settled();

    expect(tries).toBe(1);
    expect(warnings).toContain("status message gone: its updates end");
    expect(await updates.inProgress()).not.toContainEqual(
      expect.objectContaining({ generationId: "hidden" }),
    );
  });

  it("shows nothing more on a message gone while a newer state was being recorded for it", async () => {
    // A delivery checks that its message is still shown, then records its state: "gone" can come between.
    const store = await PostgresStore.open({ url: database.url, schema: "imagehub_bots", platform: "slack" });
    stores.push(store);
    const { pending } = statusCollectionsOf(store);
    let isHoldingNextWrite = false;
    let writeHeld = () => {};
    let pendingDeleted = () => {};
    const heldWrite = new Promise<void>((resolve) => (writeHeld = resolve));
    const deleted = new Promise<void>((resolve) => (pendingDeleted = resolve));
    const racing: typeof pending = {
      get: (key) => pending.get(key),
      values: () => pending.values(),
      set: (key, value) => pending.set(key, value),
      deleteIf: (key, isDone) => pending.deleteIf(key, isDone),
      update: async (key, change) => {
        if (isHoldingNextWrite) {
          isHoldingNextWrite = false;
          writeHeld();
          await deleted;
        }
        return pending.update(key, change);
      },
      delete: async (key) => {
        await pending.delete(key);
        pendingDeleted();
      },
    };
    const target = aTarget("C-raced");
    let tries = 0;
    let doneOffered: Promise<void> | undefined;
    const updates: StatusUpdates = await aReplica(
      async () => {
        tries += 1;
        if (tries === 1) {
          isHoldingNextWrite = true;
          doneOffered = updates.offer(target, aStep("raced", GenerationStatus.Done, 4));
          await heldWrite;
        }
        throw new MessageGoneError("Slack message_not_found");
      },
      { pending: racing },
    );
    await updates.offer(target, aStep("raced", GenerationStatus.Processing, 1));
    await until(() => doneOffered !== undefined, { what: "the newer state offered" });
    await doneOffered;
    await updates.settled();

    expect(tries).toBe(1);
  });

  it("tries a failed update again later", async () => {
    const shown: Shown = new Map();
    let failures = 1;
    const updates = await aReplica(async (target, generation) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error("503 from the platform");
      }
      await recording(shown)(target, generation);
    });
    await updates.offer(aTarget(), aStep("flaky", GenerationStatus.Done, 4));
    await until(() => shown.has("flaky"), { what: "the second try" });
    expect(warnings).toContain("status message not updated; trying again later");
  });

  it("converges: the platform refuses every update for 10 minutes, then recovers, and the message reaches Done", async () => {
    let clock = Date.now();
    const outageEnds = clock + 10 * 60_000;
    const shown: Shown = new Map();
    let refusals = 0;
    const updates = await aReplica(
      async (target, generation) => {
        if (clock < outageEnds) {
          refusals += 1;
          throw new Error("503 Service Unavailable");
        }
        await recording(shown)(target, generation);
      },
      { now: () => clock, pollIntervalMs: 3_600_000 },
    );
    await updates.offer(aTarget("C-outage"), aStep("outage", GenerationStatus.Done, 4));
    // Half a minute of the bot's clock at a time, for twenty minutes at most.
    for (let step = 0; step < 40 && !shown.has("outage"); step += 1) {
      await updates.flush();
      clock += 30_000;
    }

    expect(shown.get("outage")).toEqual([`${GenerationStatus.Done}/4`]);
    expect(refusals).toBeGreaterThan(8);
    expect(await updates.inProgress()).not.toContainEqual(
      expect.objectContaining({ generationId: "outage" }),
    );
  });

  it("falls back in steps when the platform refuses a form: the grid uploaded, then text with links", async () => {
    const forms: MessageForm[] = [];
    const updates = await aReplica(async (_target, _generation, form) => {
      forms.push(form);
      if (form !== "links") throw new FormRefusedError("invalid_blocks: downloading image failed");
    });
    await updates.offer(aTarget("C-forms"), aStep("forms", GenerationStatus.Done, 4));
    await updates.settled();

    expect(forms).toEqual(["grid", "uploaded-grid", "links"]);
  });

  it("gives up only when the platform says the message is gone, and tells its requester once", async () => {
    const told: string[] = [];
    const updates = await aReplica(
      async () => {
        throw new MessageGoneError("message_not_found");
      },
      {
        tellRequester: async (target, generation, reason) => {
          told.push(`${target.userId} ${generation.id} ${reason}`);
        },
      },
    );
    const target = aTarget("C-gone");
    await updates.offer(target, aStep("gone", GenerationStatus.Processing, 1));
    await updates.settled();
    await updates.offer(target, aStep("gone", GenerationStatus.Done, 4));
    await updates.settled();

    expect(told).toEqual(["U1 gone message_not_found"]);
  });

  it("waits for a permission the bot lacks, telling the requester once, and reaches Done once it is granted", async () => {
    let clock = Date.now();
    let isGranted = false;
    const told: string[] = [];
    const shown: Shown = new Map();
    const updates = await aReplica(
      async (target, generation) => {
        if (!isGranted) throw new PermissionMissingError("View Channel", "Discord 50001: Missing Access");
        await recording(shown)(target, generation);
      },
      {
        now: () => clock,
        pollIntervalMs: 3_600_000,
        tellPermissionMissing: async (target, generation, missing) => {
          told.push(`${target.userId} ${generation.id} ${missing}`);
        },
      },
    );
    const target = aTarget("C-forbidden");
    await updates.offer(target, aStep("forbidden", GenerationStatus.Processing, 1));
    await updates.offer(target, aStep("forbidden", GenerationStatus.Done, 4));
    for (let step = 0; step < 6; step += 1) {
      await updates.flush();
      clock += 30_000;
    }
    expect(await updates.inProgress()).toContainEqual(expect.objectContaining({ generationId: "forbidden" }));

    isGranted = true;
    for (let step = 0; step < 4 && !shown.has("forbidden"); step += 1) {
      clock += 30_000;
      await updates.flush();
    }
    expect(shown.get("forbidden")).toEqual([`${GenerationStatus.Done}/4`]);
    expect(told).toEqual(["U1 forbidden View Channel"]);
    expect(warnings).not.toContain("status message gone: its updates end");
  });

  it("edits a message for the generation it was posted for only: another generation naming it is refused", async () => {
    const shown: Shown = new Map();
    const updates = await aReplica(recording(shown));
    const target = aTarget("C-owner");
    await updates.track(target, aStep("own", GenerationStatus.Pending, 0));

    await updates.offer(target, aStep("hijack", GenerationStatus.Done, 4));
    await updates.offer(target, aStep("own", GenerationStatus.Processing, 1));
    await updates.settled();

    expect([...shown.keys()]).toEqual(["own"]);
    expect(warnings).toContain("refused a generation that is not the one its message was posted for");
  });

  it("keeps a channel to one update at a time across replicas", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const applying: string[] = [];
    let isOverlapping = false;
    const apply = async (target: ChatTarget, generation: ImageGeneration) => {
      const channel = target.channelId;
      if (applying.includes(channel)) isOverlapping = true;
      applying.push(channel);
      if (generation.id === "first") await held;
      applying.splice(applying.indexOf(channel), 1);
    };
    const [one, two] = [await aReplica(apply), await aReplica(apply)];
    await one.offer(aTarget("C-shared"), aStep("first", GenerationStatus.Done, 4));
    await until(() => applying.includes("C-shared"), { what: "the first update under way" });
    await two.offer(aTarget("C-shared"), aStep("second", GenerationStatus.Done, 4));
    // The second replica's turn at the channel comes once the first's update is over: a later marker, in
    // another channel, shows the second replica working meanwhile.
    const marker = aStep("marker", GenerationStatus.Done, 4);
    await two.offer(aTarget("C-marker"), marker);
    await until(async () => (await two.inProgress()).every((message) => message.generationId !== "marker"), {
      what: "the marker shown",
    });
    expect(applying).toEqual(["C-shared"]);
    release();
    await Promise.all([one.settled(), two.settled()]);

    expect(isOverlapping).toBe(false);
  });

  it("reconciles a message that lags its generation once imagehub answers again", async () => {
    let clock = Date.now();
    const imagehub = new FakeImagehub();
    const shown: Shown = new Map();
    const updates = await aReplica(recording(shown), {
      now: () => clock,
      fetchGeneration: imagehub.fetch,
      reconcileIntervalMs: 3_600_000,
    });
    const target = aTarget("C-lagging");
    await updates.track(target, aStep("lagging", GenerationStatus.Pending, 0));
    // Its completion was never delivered, and imagehub is down when first asked.
    imagehub.generations.set("lagging", aStep("lagging", GenerationStatus.Done, 4));
    imagehub.isDown = true;
    clock += 2 * 60_000;
    await updates.reconcile();
    await updates.settled();
    expect(shown.get("lagging")).toBeUndefined();

    imagehub.isDown = false;
    await updates.reconcile();
    await updates.settled();
    expect(shown.get("lagging")).toEqual([`${GenerationStatus.Done}/4`]);
  });
});
