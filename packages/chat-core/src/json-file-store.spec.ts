import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { JsonFileStore } from "./json-file-store.js";

describe("JsonFileStore", () => {
  let folder: string;
  afterEach(async () => rm(folder, { recursive: true, force: true }));

  it("keeps records across reopening, by collection and key, in a file only its owner reads", async () => {
    folder = await mkdtemp(join(tmpdir(), "store-"));
    const path = join(folder, "nested", "state.json");
    const store = await JsonFileStore.open(path);
    const teams = store.collection<{ name: string }>("teams");
    await Promise.all([teams.set("a", { name: "A" }), teams.set("b", { name: "B" })]);
    await teams.delete("a");
    await store.collection<number>("counters").set("a", 1);

    const reopened = await JsonFileStore.open(path);
    expect(await reopened.collection("teams").values()).toEqual([{ name: "B" }]);
    expect(await reopened.collection("counters").get("a")).toBe(1);
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({
      teams: { b: { name: "B" } },
      counters: { a: 1 },
    });
  });
});
