import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, expect } from "vitest";
import { fakePicture } from "./fake-pictures.js";
import { startTestApi, type TestApi } from "./test-api.js";

export const ADMIN_CLI = join(import.meta.dirname, "../../apps/api/dist/admin/admin.cli.js");
/** Each test runs the CLI as a process (which opens the database) two to four times. */
export const CLI_RUNS_MS = 120_000;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ImportSummary {
  lines: number;
  added: number;
  updated: number;
  unchanged: number;
  skipped: number;
  strayFilesRemoved: number;
}

export interface ImportedRow {
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

/** A manifest line as an operator writes it. */
export function line(externalId: string, overrides: Record<string, unknown> = {}) {
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

/**
 * The suite's catalogue: a test API whose storage is a folder of the suite's own, a folder of pictures to
 * import, and the built admin CLI's catalogue commands run against both. Started before the suite's tests,
 * removed after them.
 */
export function catalogueWorkspace() {
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

  return {
    get api() {
      return api;
    },
    /** A scratch folder of the suite's own. */
    get work() {
      return work;
    },
    get storageDir() {
      return storageDir;
    },
    get picturesDir() {
      return picturesDir;
    },
    cliEnvironment,
    admin,
    writeManifest,
    importLines,
    picture,
    query,
    importedRows,
    storedFiles,
    expectWholeImages,
  };
}
