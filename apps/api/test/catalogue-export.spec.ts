import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_RUNS_MS, catalogueWorkspace, line } from "../../../tests/support/catalogue-workspace.js";
import { BLUE, RED } from "../../../tests/support/fake-pictures.js";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";

describe("catalogue export (admin CLI)", { timeout: CLI_RUNS_MS }, () => {
  const workspace = catalogueWorkspace();

  it("round-trips: an export imported into an empty catalogue exports the same lines and files", async () => {
    await workspace.importLines([
      line("trip-1", {
        file: await workspace.picture("trip-1.png", 300, 200, { colour: RED }),
        free: true,
        price: 0,
      }),
      line("trip-2", {
        file: await workspace.picture("trip-2.jpg", 200, 300, { format: "jpeg", colour: BLUE }),
      }),
      line("trip/3 é", {
        titles: { en: "A café terrace", fr: "Une terrasse de café", de: "Eine Caféterrasse" },
        tags: ["café", "street"],
      }),
    ]);
    const first = { out: join(workspace.work, "export-1.jsonl"), images: join(workspace.work, "export-1") };
    expect(
      (await workspace.admin(["catalogue", "export", "--out", first.out, "--images", first.images])).code,
    ).toBe(0);
    const exported = (await readFile(first.out, "utf8")).trim().split("\n");
    const trip = exported.map((text) => JSON.parse(text)).filter((entry) => /^trip/.test(entry.externalId));
    expect(trip.map(({ file: _, ...entry }) => entry)).toEqual([
      { ...line("trip-1"), free: true, price: 0 },
      line("trip-2"),
      {
        ...line("trip/3 é"),
        titles: { en: "A café terrace", fr: "Une terrasse de café", de: "Eine Caféterrasse" },
        tags: ["café", "street"],
      },
    ]);

    // An empty catalogue: its own database and storage.
    const empty: TestDatabase = await createTestDatabase();
    const emptyCatalogue = {
      database: empty.url,
      env: { STORAGE_DIR: join(workspace.work, "empty-storage") },
    };
    try {
      const loaded = await workspace.admin(
        ["catalogue", "import", "--manifest", first.out, "--images", first.images, "--json"],
        emptyCatalogue,
      );
      expect(loaded.code).toBe(0);
      expect(JSON.parse(loaded.stdout)).toMatchObject({ added: exported.length, skipped: 0 });
      const second = {
        out: join(workspace.work, "export-2.jsonl"),
        images: join(workspace.work, "export-2"),
      };
      expect(
        (
          await workspace.admin(
            ["catalogue", "export", "--out", second.out, "--images", second.images],
            emptyCatalogue,
          )
        ).code,
      ).toBe(0);
      expect(await readFile(second.out, "utf8")).toBe(await readFile(first.out, "utf8"));
      const names = (await readdir(first.images)).sort();
      expect((await readdir(second.images)).sort()).toEqual(names);
      for (const name of names) {
        expect(await readFile(join(second.images, name))).toEqual(await readFile(join(first.images, name)));
      }
    } finally {
      await empty.drop();
    }
  });
});
