import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakePictureHost, startFakePictureHost } from "../../../tests/support/fake-picture-host.js";
import { BLUE, fakePicture, GREEN, meanColour, RED } from "../../../tests/support/fake-pictures.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";

const ADMIN_CLI = join(import.meta.dirname, "../dist/admin/admin.cli.js");
/** Each test runs the CLI as a process (which opens the database) two to four times. */
const CLI_RUNS_MS = 120_000;

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

interface ImportSummary {
  lines: number;
  added: number;
  updated: number;
  unchanged: number;
  skipped: number;
  strayFilesRemoved: number;
}

/** A manifest line as an operator writes it. */
function line(externalId: string, overrides: Record<string, unknown> = {}) {
  return {
    externalId,
    titles: {
      en: `A lighthouse on a rocky coast ${externalId}`,
      fr: `Un phare sur une côte rocheuse ${externalId}`,
    },
    tags: ["lighthouse", "coast", "sea"],
    free: false,
    price: 1,
    ...overrides,
  };
}

describe("catalogue import and export (admin CLI)", { timeout: CLI_RUNS_MS }, () => {
  let api: TestApi;
  let work: string;
  let storageDir: string;
  let picturesDir: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "imagehub-import-"));
    storageDir = join(work, "storage");
    picturesDir = join(work, "pictures");
    await mkdir(picturesDir);
    api = await startTestApi({ env: { STORAGE_DIR: storageDir } });
  });
  afterAll(async () => {
    await api.close();
    await rm(work, { recursive: true, force: true });
  });

  function cliEnvironment(database: string, env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return { PATH: process.env.PATH ?? "", DATABASE_URL: database, STORAGE_DIR: storageDir, ...env };
  }

  /** Runs the built CLI (what `npm run admin --` runs) to its end. */
  function admin(args: string[], { database = api.database.url, env = {} } = {}): Promise<CliRun> {
    return promisify(execFile)(process.execPath, [ADMIN_CLI, ...args], {
      env: cliEnvironment(database, env),
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: CliRun) => error,
    );
  }

  let manifests = 0;
  async function writeManifest(lines: (object | string)[]): Promise<string> {
    const path = join(work, `manifest-${++manifests}.jsonl`);
    await writeFile(
      path,
      lines.map((entry) => (typeof entry === "string" ? entry : JSON.stringify(entry))).join("\n"),
    );
    return path;
  }

  async function importLines(
    lines: (object | string)[],
    options: { args?: string[]; database?: string; env?: NodeJS.ProcessEnv } = {},
  ): Promise<CliRun & { summary: ImportSummary }> {
    const manifest = await writeManifest(lines);
    const run = await admin(
      [
        "catalogue",
        "import",
        "--manifest",
        manifest,
        "--images",
        picturesDir,
        "--json",
        ...(options.args ?? []),
      ],
      options,
    );
    return { ...run, summary: JSON.parse(run.stdout || "{}") as ImportSummary };
  }

  async function picture(name: string, width: number, height: number, options = {}): Promise<string> {
    await writeFile(join(picturesDir, name), await fakePicture(width, height, options));
    return name;
  }

  async function query<Row>(
    sql: string,
    values: unknown[] = [],
    database = api.database.url,
  ): Promise<Row[]> {
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      return (await client.query(sql, values)).rows as Row[];
    } finally {
      await client.end();
    }
  }

  interface ImportedRow {
    id: string;
    external_id: string;
    titles: Record<string, string>;
    tags: string[];
    free: boolean;
    price: number;
    width: number;
    height: number;
    external_source: string | null;
    renditions: Record<string, { key: string; etag: string }>;
  }
  const importedRows = (prefix: string, database = api.database.url) =>
    query<ImportedRow>(
      `SELECT id, external_id, titles, tags, free, price, width, height, external_source, renditions
       FROM images WHERE external_id LIKE $1 ORDER BY external_id`,
      [`${prefix}%`],
      database,
    );

  async function storedFiles(): Promise<string[]> {
    const entries = await readdir(storageDir, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => relative(storageDir, join(entry.parentPath, entry.name)))
      .sort();
  }

  /**
   * No image without its files, and no file without its image: every recorded file is stored, and every
   * stored file is recorded by an image or listed as unreferenced (what a stopped import leaves for the next).
   */
  async function expectWholeImages(database = api.database.url): Promise<{ unreferenced: string[] }> {
    const recorded = (
      await query<{ key: string }>(
        "SELECT r.value->>'key' AS key FROM images, jsonb_each(renditions) r",
        [],
        database,
      )
    ).map((row) => row.key);
    const unreferenced = (
      await query<{ key: string }>("SELECT key FROM unreferenced_image_files", [], database)
    ).map((row) => row.key);
    const files = await storedFiles();
    expect(recorded.filter((key) => !files.includes(key))).toEqual([]);
    expect(files.filter((key) => !recorded.includes(key) && !unreferenced.includes(key))).toEqual([]);
    return { unreferenced };
  }

  it("loads titles, tags, prices and pictures, and a second run changes nothing", async () => {
    const lines = [
      line("same-1", { file: await picture("same-1.png", 640, 480, { colour: RED }), free: true }),
      line("same-2", { file: await picture("same-2.jpg", 480, 720, { format: "jpeg", colour: GREEN }) }),
      line("same-3", { titles: { en: "A quiet harbour at night" }, tags: [], price: 3 }),
    ];
    const first = await importLines(lines);
    expect(first.code).toBe(0);
    expect(first.summary).toMatchObject({ lines: 3, added: 3, updated: 0, unchanged: 0, skipped: 0 });
    const rows = await importedRows("same-");
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
    expect(await readFile(join(storageDir, jpeg))).toEqual(await readFile(join(picturesDir, "same-2.jpg")));
    expect(
      (await sharp(await readFile(join(storageDir, rows[0]?.renditions.original?.key as string))).metadata())
        .format,
    ).toBe("jpeg");
    const filesBefore = await storedFiles();

    const second = await importLines(lines);
    expect(second.code).toBe(0);
    expect(second.summary).toMatchObject({ added: 0, updated: 0, unchanged: 3, skipped: 0 });
    expect(await importedRows("same-")).toEqual(rows);
    expect(await storedFiles()).toEqual(filesBefore);
    await expectWholeImages();
  });

  it("shows an imported picture through display and finds the image by its words", async () => {
    await importLines([
      line("shown-1", {
        titles: { en: "A narwhal under the aurora", fr: "Un narval sous l'aurore" },
        file: await picture("shown-1.png", 900, 600, { colour: BLUE }),
      }),
    ]);
    const [image] = await importedRows("shown-");
    const preview = await api.request(`/v1/images/preview/${image?.id}.jpg`);
    expect(preview.status).toBe(200);
    const bytes = Buffer.from(await preview.arrayBuffer());
    expect(await sharp(bytes).metadata()).toMatchObject({ format: "jpeg", width: 512, height: 341 });
    const colour = await meanColour(bytes);
    expect(colour.b).toBeGreaterThan(colour.r);

    const { apiKey } = await api.createAccount();
    const found = await readJson(
      await api.request("/v1/images/search", { method: "POST", apiKey, json: { search: "narwhal aurora" } }),
    );
    expect(found.images.map((shown: { id: string }) => shown.id)).toContain(image?.id);
    await expectWholeImages();
  });

  it("updates the image of a changed line: its text, its picture, and the files the old picture left", async () => {
    const lines = [
      line("change-1"),
      line("change-2", { file: await picture("change-2.png", 400, 400, { colour: RED }) }),
      line("change-3", { price: 2 }),
      line("change-4"),
    ];
    await importLines(lines);
    const [before2] = await importedRows("change-2");
    const oldKey = before2?.renditions.original?.key as string;
    await api.request(`/v1/images/preview/${before2?.id}.jpg`);
    const [withPreview] = await importedRows("change-2");
    expect(Object.keys(withPreview?.renditions ?? {}).sort()).toEqual(["original", "preview"]);

    const changed = [
      line("change-1", { titles: { en: "An old stone bridge in the fog" }, tags: ["bridge"] }),
      line("change-2", { file: await picture("change-2b.png", 300, 500, { colour: GREEN }) }),
      line("change-3", { price: 5, free: true }),
      line("change-4"),
    ];
    const second = await importLines(changed);
    expect(second.summary).toMatchObject({ added: 0, updated: 3, unchanged: 1, skipped: 0 });
    const rows = await importedRows("change-");
    expect(rows[0]).toMatchObject({ titles: { en: "An old stone bridge in the fog" }, tags: ["bridge"] });
    expect(rows[1]).toMatchObject({ id: before2?.id, width: 300, height: 500 });
    expect(Object.keys(rows[1]?.renditions ?? {})).toEqual(["original"]);
    expect(rows[2]).toMatchObject({ price: 5, free: true });
    const files = await storedFiles();
    expect(files).toContain(rows[1]?.renditions.original?.key);
    expect(files).not.toContain(oldKey);
    expect(files).not.toContain(withPreview?.renditions.preview?.key);
    const { unreferenced } = await expectWholeImages();
    expect(unreferenced).toEqual([]);
  });

  it("reports each bad line with its number and reason, loads the others, and exits 5 naming how many", async () => {
    await writeFile(join(picturesDir, "not-a-picture.jpg"), "plain text, not a JPEG");
    await writeFile(
      join(picturesDir, "a.gif"),
      await sharp({ create: { width: 8, height: 8, channels: 3, background: RED } })
        .gif()
        .toBuffer(),
    );
    const truncated = await fakePicture(300, 200, { format: "jpeg" });
    await writeFile(
      join(picturesDir, "truncated.jpg"),
      truncated.subarray(0, Math.floor(truncated.length / 2)),
    );
    const run = await importLines([
      line("bad-1"),
      "{ not json",
      line("bad-3", { titles: {} }),
      line("bad-4", { price: -1 }),
      line("bad-1", { price: 2 }),
      line("bad-6", { file: "missing.png" }),
      line("bad-7", { file: "not-a-picture.jpg" }),
      line("bad-8", { file: "a.gif" }),
      line("bad-9", { file: "truncated.jpg" }),
      line("bad-10", { file: "x.png", url: "https://pictures.example.test/x.png" }),
      "",
      line("bad-12", { colour: "red" }),
      line("bad-13"),
    ]);
    expect(run.code).toBe(5);
    expect(run.summary).toMatchObject({ lines: 13, added: 2, skipped: 10 });
    const reported = run.stderr.split("\n").filter((text) => text.startsWith("line "));
    expect(reported).toEqual([
      expect.stringMatching(/^line 2: not JSON/),
      "line 3: titles: at least one title",
      "line 4: price: Too small: expected number to be >=0",
      'line 5: externalId "bad-1" is already on line 1',
      'line 6: file "missing.png" does not exist',
      expect.stringMatching(/^line 7: not a readable picture/),
      "line 8: a gif picture: JPEG, PNG or WebP only",
      // libvips's reason ("premature end of JPEG image") is not always the one it reports when busy.
      expect.stringMatching(/^line 9: not a readable picture/),
      "line 10: give file or url, not both",
      'line 12: Unrecognized key: "colour"',
    ]);
    expect(run.stderr).toContain("10 lines were skipped");
    expect((await importedRows("bad-")).map((row) => row.external_id)).toEqual(["bad-1", "bad-13"]);
    await expectWholeImages();
  });

  it("refuses files outside the images folder, by path or by link", async () => {
    const outside = join(work, "outside.png");
    await writeFile(outside, await fakePicture(50, 50));
    await symlink(outside, join(picturesDir, "link-out.png"));
    const run = await importLines([
      line("escape-1", { file: "../outside.png" }),
      line("escape-2", { file: outside }),
      line("escape-3", { file: "sub/../../outside.png" }),
      line("escape-4", { file: "link-out.png" }),
    ]);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('line 1: file "../outside.png" is outside the images folder');
    expect(run.stderr).toContain(`line 2: file ${JSON.stringify(outside)} is outside the images folder`);
    expect(run.stderr).toContain('line 3: file "sub/../../outside.png" is outside the images folder');
    expect(run.stderr).toContain('line 4: file "link-out.png" links outside the images folder');
    expect(await importedRows("escape-")).toEqual([]);
  });

  describe("pictures by URL", () => {
    let host: FakePictureHost;
    let base: string;
    let requested: string[];

    beforeAll(async () => {
      host = await startFakePictureHost();
      ({ base, requested } = host);
    });
    afterAll(() => host.close());

    it("fetches a picture through the address guard when loopback is allowed (as the webhook tests allow it)", async () => {
      const run = await importLines(
        [
          line("url-1", { url: `${base}/fox.png` }),
          line("url-2", { url: `${base}/page.html` }),
          line("url-3", { url: `${base}/moved.png` }),
          line("url-4", { url: `${base}/huge.png` }),
          line("url-5", { url: `${base}/gone.png` }),
        ],
        { env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" } },
      );
      expect(run.summary).toMatchObject({ added: 1, skipped: 4 });
      expect(run.stderr).toContain(`line 2: ${base}/page.html answered text/html, not an image`);
      expect(run.stderr).toContain(`line 3: ${base}/moved.png answered 302 (redirects are not followed)`);
      expect(run.stderr).toContain(`line 4: ${base}/huge.png is larger than ${50 * 1024 * 1024} bytes`);
      expect(run.stderr).toContain(`line 5: ${base}/gone.png answered 404`);
      const [image] = await importedRows("url-");
      expect(image).toMatchObject({ width: 320, height: 240, external_source: `${base}/fox.png` });
      const stored = await meanColour(
        await readFile(join(storageDir, image?.renditions.original?.key as string)),
      );
      expect(stored.g).toBeGreaterThan(stored.r + 100);

      // The same URL again is not fetched again.
      const fetched = requested.length;
      const again = await importLines([line("url-1", { url: `${base}/fox.png` })], {
        env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" },
      });
      expect(again.summary).toMatchObject({ unchanged: 1 });
      expect(requested.length).toBe(fetched);
    });

    it("refuses an internal address without sending it anything", async () => {
      const fetched = requested.length;
      const run = await importLines(
        [
          line("internal-1", { url: `${base}/fox.png` }),
          line("internal-2", { url: `http://localhost:${new URL(base).port}/fox.png` }),
          line("internal-3", { url: "http://169.254.169.254/latest/meta-data" }),
        ],
        { env: { WEBHOOK_ALLOW_HTTP: "true" } },
      );
      expect(run.code).toBe(5);
      expect(run.stderr).toContain(`line 1: ${base}/fox.png refused: 127.0.0.1 is a loopback address`);
      expect(run.stderr).toMatch(
        /line 2: http:\/\/localhost:\d+\/fox.png refused: localhost is an internal host/,
      );
      expect(run.stderr).toContain(
        "line 3: http://169.254.169.254/latest/meta-data refused: 169.254.169.254 is a cloud metadata address",
      );
      expect(requested.length).toBe(fetched);
      expect(await importedRows("internal-")).toEqual([]);
    });
  });

  it("loads text alone with --no-images: pictures are drawn from the titles, and a later run with pictures adds them", async () => {
    const lines = [
      line("text-1", { file: await picture("text-1.png", 500, 500, { colour: BLUE }) }),
      line("text-2", { file: "never-read.png" }),
    ];
    const textOnly = await importLines(lines, { args: ["--no-images"] });
    expect(textOnly.code).toBe(0);
    expect(textOnly.summary).toMatchObject({ added: 2, skipped: 0 });
    const rows = await importedRows("text-");
    expect(rows.map((row) => [row.external_source, row.renditions])).toEqual([
      [null, {}],
      [null, {}],
    ]);
    const preview = await api.request(`/v1/images/preview/${rows[0]?.id}.jpg`);
    expect(preview.status).toBe(200);
    const drawn = await sharp(Buffer.from(await preview.arrayBuffer())).metadata();
    expect(Math.max(drawn.width, drawn.height)).toBe(512);
    expect(drawn.width / drawn.height).toBeCloseTo((rows[0]?.width ?? 0) / (rows[0]?.height ?? 1), 1);

    const withPictures = await importLines([lines[0] as object]);
    expect(withPictures.summary).toMatchObject({ updated: 1 });
    const [loaded] = await importedRows("text-1");
    expect(loaded).toMatchObject({ id: rows[0]?.id, width: 500, height: 500 });
    expect(Object.keys(loaded?.renditions ?? {})).toEqual(["original"]);
    await expectWholeImages();
  });

  it("round-trips: an export imported into an empty catalogue exports the same lines and files", async () => {
    await importLines([
      line("trip-1", {
        file: await picture("trip-1.png", 300, 200, { colour: RED }),
        free: true,
        price: 0,
      }),
      line("trip-2", { file: await picture("trip-2.jpg", 200, 300, { format: "jpeg", colour: BLUE }) }),
      line("trip/3 é", {
        titles: { en: "A café terrace", fr: "Une terrasse de café", de: "Eine Caféterrasse" },
        tags: ["café", "street"],
      }),
    ]);
    const first = { out: join(work, "export-1.jsonl"), images: join(work, "export-1") };
    expect((await admin(["catalogue", "export", "--out", first.out, "--images", first.images])).code).toBe(0);
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
    const emptyCatalogue = { database: empty.url, env: { STORAGE_DIR: join(work, "empty-storage") } };
    try {
      const loaded = await admin(
        ["catalogue", "import", "--manifest", first.out, "--images", first.images, "--json"],
        emptyCatalogue,
      );
      expect(loaded.code).toBe(0);
      expect(JSON.parse(loaded.stdout)).toMatchObject({ added: exported.length, skipped: 0 });
      const second = { out: join(work, "export-2.jsonl"), images: join(work, "export-2") };
      expect(
        (await admin(["catalogue", "export", "--out", second.out, "--images", second.images], emptyCatalogue))
          .code,
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

  it("resumes after being killed midway: every image whole or absent, then all of them once", async () => {
    const count = 240;
    const lines = [];
    for (let index = 0; index < count; index++) {
      const name = await picture(`kill-${index}.png`, 640 + (index % 7) * 16, 480, {
        colour: [RED, GREEN, BLUE][index % 3],
      });
      lines.push(line(`kill-${String(index).padStart(3, "0")}`, { file: name, price: 1 + (index % 3) }));
    }
    const manifest = await writeManifest(lines);
    const args = [ADMIN_CLI, "catalogue", "import", "--manifest", manifest, "--images", picturesDir];
    const child: ChildProcess = spawn(process.execPath, args, {
      env: cliEnvironment(api.database.url),
      stdio: ["ignore", "ignore", "pipe"],
    });
    // The first progress line comes once a batch has committed: the next one is being written.
    let progress = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      progress += chunk.toString();
      if (/lines/.test(progress) && child.exitCode === null) child.kill("SIGKILL");
    });
    const [, signal] = await once(child, "exit");
    expect(signal).toBe("SIGKILL");

    const partial = await importedRows("kill-");
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(count);
    for (const row of partial) expect(Object.keys(row.renditions)).toEqual(["original"]);
    await expectWholeImages();

    const resumed = await admin([
      "catalogue",
      "import",
      "--manifest",
      manifest,
      "--images",
      picturesDir,
      "--json",
    ]);
    expect(resumed.code).toBe(0);
    const summary = JSON.parse(resumed.stdout) as ImportSummary;
    expect(summary).toMatchObject({ added: count - partial.length, unchanged: partial.length, skipped: 0 });
    const rows = await importedRows("kill-");
    expect(rows.map((row) => row.external_id)).toEqual(lines.map((entry) => entry.externalId));
    expect(rows.filter((row) => partial.some((before) => before.id === row.id)).length).toBe(partial.length);
    const { unreferenced } = await expectWholeImages();
    expect(unreferenced).toEqual([]);
  });
});
