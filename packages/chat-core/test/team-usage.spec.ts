import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import type { BotStore } from "../src/bot-store.js";
import { JsonFileStore } from "../src/json-file-store.js";
import { PostgresStore } from "../src/postgres-store.js";
import { TeamUsage, type TeamUsageRecord } from "../src/team-usage.js";

const LIMITS = { userCooldownSeconds: 30, maxRunningPerTeam: 3 };
/** imagehub's answer when the bot asks which of the team's generations still run: those given. */
const running =
  (...ids: string[]) =>
  async () =>
    new Set(ids);
let teams = 0;
const aTeam = () => {
  teams += 1;
  return `T${teams}`;
};

describe("TeamUsage", () => {
  let database: TestDatabase;
  let folder: string;
  const stores: BotStore[] = [];
  /** Two replicas of a bot on the shared PostgreSQL state, and one development process on its JSON file. */
  let replicas: [TeamUsage, TeamUsage];
  let single: TeamUsage;

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: false });
    folder = await mkdtemp(join(tmpdir(), "imagehub-usage-"));
    const open = () =>
      PostgresStore.open({ url: database.url, schema: "imagehub_bots", platform: "discord" });
    const [one, two] = [await open(), await open()];
    const json = await JsonFileStore.open(join(folder, "bot.json"));
    stores.push(one, two, json);
    replicas = [
      new TeamUsage(one.collection<TeamUsageRecord>("teamUsage"), LIMITS),
      new TeamUsage(two.collection<TeamUsageRecord>("teamUsage"), LIMITS),
    ];
    single = new TeamUsage(json.collection<TeamUsageRecord>("teamUsage"), LIMITS);
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await database?.drop();
    await rm(folder, { recursive: true, force: true });
  });

  it("grants exactly the limit to 20 people asking at the same instant, across two replicas", async () => {
    const teamId = aTeam();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        replicas[index % 2]?.reserve({ teamId, userId: `U${index}` }, running()),
      ),
    );
    expect(outcomes.filter((outcome) => outcome?.kind === "reserved")).toHaveLength(3);
    const refusals = outcomes.flatMap((outcome) => (outcome?.kind === "refused" ? [outcome.reason] : []));
    expect(refusals).toHaveLength(17);
    for (const reason of refusals) expect(reason).toMatch(/already queued or running \(at most 3 at once\)/);
  });

  it("counts a person's cooldown from the moment their start takes the team's record, not from when it asked", async () => {
    const teamId = aTeam();
    const records = (stores[2] as BotStore).collection<TeamUsageRecord>("teamUsage");
    // The first start asks at 1,000 ms but takes the record after a second start that asked at 1,005 ms, as
    // when it waits for the record's row lock; with no cooldown both must pass.
    let releaseFirst = () => {};
    const firstWaits = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let updates = 0;
    const heldFirst: typeof records = {
      get: (key) => records.get(key),
      values: () => records.values(),
      set: (key, value) => records.set(key, value),
      delete: (key) => records.delete(key),
      deleteIf: (key, isDone) => records.deleteIf(key, isDone),
      update: async (key, change) => {
        updates += 1;
        if (updates === 1) await firstWaits;
        return records.update(key, change);
      },
    };
    let clock = 1_000;
    const usage = new TeamUsage(heldFirst, { userCooldownSeconds: 0, maxRunningPerTeam: 3 }, () => clock);
    const first = usage.reserve({ teamId, userId: "U1" }, running());
    clock = 1_005;
    const second = await usage.reserve({ teamId, userId: "U1" }, running());
    clock = 1_010;
    releaseFirst();
    expect([(await first).kind, second.kind]).toEqual(["reserved", "reserved"]);
  });
  it("grants exactly the limit in a single process on its JSON file too", async () => {
    const teamId = aTeam();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, index) => single.reserve({ teamId, userId: `U${index}` }, running())),
    );
    expect(outcomes.filter((outcome) => outcome.kind === "reserved")).toHaveLength(3);
  });

  it("lets one of two clicks of the same person at the same instant pass its cooldown", async () => {
    const teamId = aTeam();
    const outcomes = await Promise.all(
      replicas.map((usage) => usage.reserve({ teamId, userId: "U1" }, running())),
    );
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(["refused", "reserved"]);
    const refused = outcomes.find((outcome) => outcome.kind === "refused");
    expect(refused?.kind === "refused" && refused.reason).toMatch(
      /^You can start another generation in 30 s/,
    );
  });

  it("frees a place when its generation ends, and gives place and cooldown back when nothing started", async () => {
    const [usage] = replicas;
    const teamId = aTeam();
    const reservations = [];
    for (const userId of ["U1", "U2", "U3"]) {
      reservations.push(await usage.reserve({ teamId, userId }, running("gen-1", "gen-2", "gen-3")));
    }
    const ids = reservations.map((reservation) =>
      reservation.kind === "reserved" ? reservation.reservationId : "",
    );
    await usage.confirm(teamId, ids[0] as string, "gen-1");
    await usage.confirm(teamId, ids[1] as string, "gen-2");
    expect((await usage.reserve({ teamId, userId: "U4" }, running("gen-1", "gen-2"))).kind).toBe("refused");

    await usage.ended(teamId, "gen-1");
    expect((await usage.reserve({ teamId, userId: "U4" }, running("gen-2"))).kind).toBe("reserved");
    expect(await usage.runningCount(teamId)).toBe(3);

    await usage.cancel(teamId, ids[2] as string);
    expect(await usage.runningCount(teamId)).toBe(2);
    // U3 started nothing: no cooldown holds them back.
    expect((await usage.reserve({ teamId, userId: "U3" }, running("gen-2"))).kind).toBe("reserved");
  });

  it("takes back the places of generations imagehub no longer runs when the team is full", async () => {
    const [usage] = replicas;
    const teamId = aTeam();
    for (const [index, userId] of ["U1", "U2", "U3"].entries()) {
      const reservation = await usage.reserve({ teamId, userId }, running());
      if (reservation.kind === "reserved")
        await usage.confirm(teamId, reservation.reservationId, `gen-${index}`);
    }
    // The bot never heard gen-0 end (its webhook was off): imagehub no longer lists it.
    expect((await usage.reserve({ teamId, userId: "U4" }, running("gen-1", "gen-2"))).kind).toBe("reserved");
    expect((await usage.reserve({ teamId, userId: "U5" }, running("gen-1", "gen-2"))).kind).toBe("refused");
  });

  it("keeps the place of a generation created while imagehub was being asked", async () => {
    const [usage] = replicas;
    const teamId = aTeam();
    const ids: string[] = [];
    for (const userId of ["U1", "U2", "U3"]) {
      const reservation = await usage.reserve({ teamId, userId }, running());
      if (reservation.kind === "reserved") ids.push(reservation.reservationId);
    }
    await usage.confirm(teamId, ids[0] as string, "gen-1");
    await usage.confirm(teamId, ids[1] as string, "gen-2");
    // gen-3 is created while imagehub answers which generations run: its answer cannot list it.
    const answerBeforeGen3 = async () => {
      await usage.confirm(teamId, ids[2] as string, "gen-3");
      return new Set(["gen-1", "gen-2"]);
    };
    expect((await usage.reserve({ teamId, userId: "U4" }, answerBeforeGen3)).kind).toBe("refused");
    expect(await usage.runningCount(teamId)).toBe(3);
  });

  it("holds each person to the team's daily quota, gives back a start that started nothing, and counts anew the next day", async () => {
    const teamId = aTeam();
    let clock = Date.parse("2026-12-06T10:00:00Z");
    const store = await PostgresStore.open({ url: database.url, schema: "imagehub_bots", platform: "slack" });
    stores.push(store);
    const usage = new TeamUsage(
      store.collection<TeamUsageRecord>("teamUsage"),
      { userCooldownSeconds: 0, maxRunningPerTeam: 10 },
      () => clock,
    );
    const start = (userId: string) => usage.reserve({ teamId, userId, dailyQuota: 2 }, running());

    const first = await start("U1");
    expect(first.kind).toBe("reserved");
    if (first.kind === "reserved") await usage.cancel(teamId, first.reservationId);
    expect((await start("U1")).kind).toBe("reserved");
    expect((await start("U1")).kind).toBe("reserved");
    const refused = await start("U1");
    expect(refused).toMatchObject({
      kind: "refused",
      reason: expect.stringMatching(/^You have started your 2 generations for today/),
    });
    // Another person of the team has a quota of their own.
    expect((await start("U2")).kind).toBe("reserved");
    expect(await usage.personUsage(teamId, "U1", 2)).toMatchObject({ startedToday: 2, dailyQuota: 2 });

    clock = Date.parse("2026-12-07T00:00:01Z");
    expect((await start("U1")).kind).toBe("reserved");
    expect(await usage.personUsage(teamId, "U1", 2)).toMatchObject({ startedToday: 1 });
  });

  it("counts each image once against the daily cap, and not a purchase imagehub refused", async () => {
    const [usage, other] = replicas;
    const teamId = aTeam();
    expect(await usage.reservePurchase(teamId, "img-1", 2)).toBeUndefined();
    expect(await other.reservePurchase(teamId, "img-1", 2)).toBeUndefined();
    expect(await usage.reservePurchase(teamId, "img-2", 2)).toBeUndefined();
    expect(await other.reservePurchase(teamId, "img-3", 2)).toMatch(/bought its 2 images for today/);
    await usage.cancelPurchase(teamId, "img-2");
    expect(await other.reservePurchase(teamId, "img-3", 2)).toBeUndefined();
    expect(await usage.reservePurchase(teamId, "img-4", undefined)).toBeUndefined();
  });
});
