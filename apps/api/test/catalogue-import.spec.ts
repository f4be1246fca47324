import { readFile } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { CLI_RUNS_MS, catalogueWorkspace, line } from "../../../tests/support/catalogue-workspace.js";
import { BLUE, GREEN, meanColour, RED } from "../../../tests/support/fake-pictures.js";
import { readJson } from "../../../tests/support/json.js";

describe("catalogue import (admin CLI)", { timeout: CLI_RUNS_MS }, () => {
  const workspace = catalogueWorkspace();

  it("loads titles, tags, prices and pictures, and a second run changes nothing", async () => {
    const lines = [
      line("same-1", { file: await workspace.picture("same-1.png", 640, 480, { colour: RED }), free: true }),
      line("same-2", {
        file: await workspace.picture("same-2.jpg", 480, 720, { format: "jpeg", colour: GREEN }),
      }),
      line("same-3", { titles: { en: "A quiet harbour at night" }, tags: [], price: 3 }),
    ];
    const first = await workspace.importLines(lines);
    expect(first.code).toBe(0);
    expect(first.summary).toMatchObject({ lines: 3, added: 3, updated: 0, unchanged: 0, skipped: 0 });
    const rows = await workspace.importedRows("same-");
    expect(
      rows.map(({ external_id, free, price, width, height, tags }) => ({
        external_id,
        free,
        price,
        width,
        height,
        tags,
      })),
    ).toEqual([
      {
        external_id: "same-1",
        free: true,
        price: 1,
        width: 640,
        height: 480,
        tags: ["lighthouse", "coast", "sea"],
      },
      {
        external_id: "same-2",
        free: false,
        price: 1,
        width: 480,
        height: 720,
        tags: ["lighthouse", "coast", "sea"],
      },
      {
        external_id: "same-3",
        free: false,
        price: 3,
        width: expect.any(Number),
        height: expect.any(Number),
        tags: [],
      },
    ]);
    // A JPEG is stored as it came; other pictures become one.
    const jpeg = rows[1]?.renditions.original?.key as string;
    expect(await readFile(join(workspace.storageDir, jpeg))).toEqual(
      await readFile(join(workspace.picturesDir, "same-2.jpg")),
    );
    expect(
      (
        await sharp(
          await readFile(join(workspace.storageDir, rows[0]?.renditions.original?.key as string)),
        ).metadata()
      ).format,
    ).toBe("jpeg");
    const filesBefore = await workspace.storedFiles();

    const second = await workspace.importLines(lines);
    expect(second.code).toBe(0);
    expect(second.summary).toMatchObject({ added: 0, updated: 0, unchanged: 3, skipped: 0 });
    expect(await workspace.importedRows("same-")).toEqual(rows);
    expect(await workspace.storedFiles()).toEqual(filesBefore);
    await workspace.expectWholeImages();
  });

  it("shows an imported picture through display and finds the image by its words", async () => {
    await workspace.importLines([
      line("shown-1", {
        titles: { en: "A narwhal under the aurora", fr: "Un narval sous l'aurore" },
        file: await workspace.picture("shown-1.png", 900, 600, { colour: BLUE }),
      }),
    ]);
    const [image] = await workspace.importedRows("shown-");
    const preview = await workspace.api.request(`/v1/images/preview/${image?.id}.jpg`);
    expect(preview.status).toBe(200);
    const bytes = Buffer.from(await preview.arrayBuffer());
    expect(await sharp(bytes).metadata()).toMatchObject({ format: "jpeg", width: 512, height: 341 });
    const colour = await meanColour(bytes);
    expect(colour.b).toBeGreaterThan(colour.r);

    const { apiKey } = await workspace.api.createAccount();
    const found = await readJson(
      await workspace.api.request("/v1/images/search", {
        method: "POST",
        apiKey,
        json: { search: "narwhal aurora" },
      }),
    );
    expect(found.images.map((shown: { id: string }) => shown.id)).toContain(image?.id);
    await workspace.expectWholeImages();
  });

  it("updates the image of a changed line: its text, its picture, and the files the old picture left", async () => {
    const lines = [
      line("change-1"),
      line("change-2", { file: await workspace.picture("change-2.png", 400, 400, { colour: RED }) }),
      line("change-3", { price: 2 }),
      line("change-4"),
    ];
    await workspace.importLines(lines);
    const [before2] = await workspace.importedRows("change-2");
    const oldKey = before2?.renditions.original?.key as string;
    await workspace.api.request(`/v1/images/preview/${before2?.id}.jpg`);
    const [withPreview] = await workspace.importedRows("change-2");
    expect(Object.keys(withPreview?.renditions ?? {}).sort()).toEqual(["original", "preview"]);

    const changed = [
      line("change-1", { titles: { en: "An old stone bridge in the fog" }, tags: ["bridge"] }),
      line("change-2", { file: await workspace.picture("change-2b.png", 300, 500, { colour: GREEN }) }),
      line("change-3", { price: 5, free: true }),
      line("change-4"),
    ];
    const second = await workspace.importLines(changed);
    expect(second.summary).toMatchObject({ added: 0, updated: 3, unchanged: 1, skipped: 0 });
    const rows = await workspace.importedRows("change-");
    expect(rows[0]).toMatchObject({ titles: { en: "An old stone bridge in the fog" }, tags: ["bridge"] });
    expect(rows[1]).toMatchObject({ id: before2?.id, width: 300, height: 500 });
    expect(Object.keys(rows[1]?.renditions ?? {})).toEqual(["original"]);
    expect(rows[2]).toMatchObject({ price: 5, free: true });
    const files = await workspace.storedFiles();
    expect(files).toContain(rows[1]?.renditions.original?.key);
    expect(files).not.toContain(oldKey);
    expect(files).not.toContain(withPreview?.renditions.preview?.key);
    const { unreferenced } = await workspace.expectWholeImages();
    expect(unreferenced).toEqual([]);
  });

  it("loads text alone with --no-images: pictures are drawn from the titles, and a later run with pictures adds them", async () => {
    const lines = [
      line("text-1", { file: await workspace.picture("text-1.png", 500, 500, { colour: BLUE }) }),
      line("text-2", { file: "never-read.png" }),
    ];
    const textOnly = await workspace.importLines(lines, { args: ["--no-images"] });
    expect(textOnly.code).toBe(0);
    expect(textOnly.summary).toMatchObject({ added: 2, skipped: 0 });
    const rows = await workspace.importedRows("text-");
    expect(rows.map((row) => [row.external_source, row.renditions])).toEqual([
      [null, {}],
      [null, {}],
    ]);
    const preview = await workspace.api.request(`/v1/images/preview/${rows[0]?.id}.jpg`);
    expect(preview.status).toBe(200);
    const drawn = await sharp(Buffer.from(await preview.arrayBuffer())).metadata();
    expect(Math.max(drawn.width, drawn.height)).toBe(512);
    expect(drawn.width / drawn.height).toBeCloseTo((rows[0]?.width ?? 0) / (rows[0]?.height ?? 1), 1);

    const withPictures = await workspace.importLines([lines[0] as object]);
    expect(withPictures.summary).toMatchObject({ updated: 1 });
    const [loaded] = await workspace.importedRows("text-1");
    expect(loaded).toMatchObject({ id: rows[0]?.id, width: 500, height: 500 });
    expect(Object.keys(loaded?.renditions ?? {})).toEqual(["original"]);
    await workspace.expectWholeImages();
  });

  it("indexes the new images of many batches for search in one flush, all searchable when it ends", async () => {
    // 4,500 lines: three batches of the import. A term's version moves with every statement that indexes it.
    const lines = Array.from({ length: 4500 }, (_, index) =>
      line(`flush-${index}`, { tags: ["zyxquorbit", `zyxqtag${index % 7}`] }),
    );
    const run = await workspace.importLines(lines, { args: ["--no-images"] });
    expect(run.code).toBe(0);
    expect(run.summary).toMatchObject({ added: 4500, skipped: 0 });
    const terms = await workspace.query<{ term: string; documents: number; version: string }>(
      "SELECT term, documents, version::text FROM search_terms WHERE term LIKE 'zyxq%' ORDER BY term",
    );
    expect(terms.length).toBeGreaterThan(0);
    for (const term of terms) expect(term.version).toBe("1");
    const [{ documents = 0 } = {}] = await workspace.query<{ documents: number }>(
      `SELECT count(*)::int AS documents FROM search_documents s JOIN images i ON i.id = s.image_id
       WHERE i.external_id LIKE 'flush-%'`,
    );
    expect(documents).toBe(4500);
    expect(await workspace.query("SELECT image_id FROM search_index_pending")).toEqual([]);
    const { apiKey } = await workspace.api.createAccount();
    const found = await workspace.api.request("/v1/images/search", {
      method: "POST",
      apiKey,
      json: { search: "zyxqtag3" },
    });
    expect(found.status).toBe(200);
    expect(await readJson(found)).toMatchObject({ filteredResults: 643 });
  });
});
