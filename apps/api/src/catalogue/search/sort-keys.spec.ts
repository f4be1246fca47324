import { describe, expect, it } from "vitest";
import type { SortKeysRow } from "./search.statements.js";
import { SortKeys } from "./sort-keys.js";

/** The packed keys of a read: document number, date (ms), popularity. */
function packed(...documents: [number, number, number][]): string {
  const bytes = Buffer.alloc(16 * documents.length);
  for (const [index, [document, date, popularity]] of documents.entries()) {
    bytes.writeInt32BE(document, 16 * index);
    bytes.writeDoubleBE(date, 16 * index + 4);
    bytes.writeInt32BE(popularity, 16 * index + 12);
  }
  return bytes.toString("base64");
}

/** Reads answered by hand, each recorded with what it asked for. */
function manualReads() {
  const reads: { after: number; since: string | null; answer: (row: SortKeysRow) => void }[] = [];
  const keys = new SortKeys(
    (after, since) => new Promise<SortKeysRow>((answer) => reads.push({ after, since, answer })),
  );
  return { keys, reads };
}

describe("SortKeys", () => {
  it("reads every document first, then those numbered beyond and the keys changed since the last horizon", async () => {
    const { keys, reads } = manualReads();
    const first = keys.current();
    reads[0]?.answer({ keys: packed([0, 1_000, 3], [3, 2_000, 5]), horizon: "40" });
    await first;
    expect([reads[0]?.after, reads[0]?.since]).toEqual([-1, null]);
    expect([keys.dates.values[0], keys.dates.values[1], keys.popularities.values[1]]).toEqual([
      1_000, 2_000, 5,
    ]);

    const second = keys.current();
    reads[1]?.answer({ keys: packed([0, 1_000, 9], [8, 4_000, 1]), horizon: "44" });
    await second;
    expect([reads[1]?.after, reads[1]?.since]).toEqual([3, "40"]);
    expect([keys.popularities.values[0], keys.dates.values[4], keys.popularities.values[4]]).toEqual([
      9, 4_000, 1,
    ]);

    const third = keys.current();
    reads[2]?.answer({ keys: null, horizon: "45" });
    await third;
    expect([reads[2]?.after, reads[2]?.since]).toEqual([8, "44"]);
  });

  it("answers a search asking during a read only after a read that started after it, shared by all who asked", async () => {
    const { keys, reads } = manualReads();
    const first = keys.current();
    const asked = [keys.current(), keys.current()];
    let settled = 0;
    for (const promise of asked) void promise.then(() => (settled += 1));
    reads[0]?.answer({ keys: packed([2, 5, 5]), horizon: "10" });
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(0);
    expect(reads).toHaveLength(2);
    reads[1]?.answer({ keys: null, horizon: "11" });
    await Promise.all(asked);
    expect(reads).toHaveLength(2);
    expect(reads[1]?.since).toBe("10");
  });

  it("keeps its keys and horizon when a read fails, and reads the same again next time", async () => {
    const { keys, reads } = manualReads();
    const first = keys.current();
    reads[0]?.answer({ keys: packed([0, 7, 7]), horizon: "3" });
    await first;
    const failing = new SortKeys(async () => {
      throw new Error("connection lost");
    });
    await expect(failing.current()).rejects.toThrow("connection lost");
    const again = keys.current();
    reads[1]?.answer({ keys: null, horizon: "4" });
    await again;
    expect([reads[1]?.after, reads[1]?.since, keys.dates.values[0]]).toEqual([0, "3", 7]);
  });
});
