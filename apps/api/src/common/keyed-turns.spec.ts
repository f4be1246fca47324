import { describe, expect, it } from "vitest";
import { KeyedTurns } from "./keyed-turns.js";

/** Work that runs until `finish` is called, recording when it starts and ends. */
function heldWork(log: string[], name: string) {
  let finish = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const work = async () => {
    log.push(`${name} starts`);
    await finished;
    log.push(`${name} ends`);
    return name;
  };
  return { work, finish };
}

describe("KeyedTurns", () => {
  it("runs one key's work one at a time, in the order asked", async () => {
    const turns = new KeyedTurns();
    const log: string[] = [];
    const first = heldWork(log, "first");
    const second = heldWork(log, "second");
    const answers = [turns.run("a", first.work), turns.run("a", second.work)];
    second.finish();
    await Promise.resolve();
    expect(log).toEqual(["first starts"]);
    first.finish();
    expect(await Promise.all(answers)).toEqual(["first", "second"]);
    expect(log).toEqual(["first starts", "first ends", "second starts", "second ends"]);
  });

  it("runs different keys' work at once", async () => {
    const turns = new KeyedTurns();
    const log: string[] = [];
    const a = heldWork(log, "a");
    const b = heldWork(log, "b");
    const answers = [turns.run("a", a.work), turns.run("b", b.work)];
    await Promise.resolve();
    expect(log).toEqual(["a starts", "b starts"]);
    a.finish();
    b.finish();
    expect(await Promise.all(answers)).toEqual(["a", "b"]);
  });

  it("gives the next turn after work that failed, which fails alone", async () => {
    const turns = new KeyedTurns();
    const failed = turns.run("a", () => Promise.reject(new Error("refused")));
    const next = turns.run("a", async () => "next");
    await expect(failed).rejects.toThrow("refused");
    expect(await next).toBe("next");
  });
});
