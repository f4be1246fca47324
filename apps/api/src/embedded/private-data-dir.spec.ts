import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@imagehub/db";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeDataDirPrivate } from "./private-data-dir.js";

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe("makeDataDirPrivate", () => {
  let root: string;
  let umaskBefore: number;
  beforeEach(async () => {
    umaskBefore = process.umask();
    root = await mkdtemp(join(tmpdir(), "imagehub-data-"));
  });
  afterEach(async () => {
    process.umask(umaskBefore);
    await rm(root, { recursive: true, force: true });
  });

  it("narrows existing folders to 0700 and files to 0600", async () => {
    const dataDir = join(root, "data");
    await mkdir(join(dataDir, "pglite", "pg_wal"), { recursive: true });
    await writeFile(join(dataDir, "pglite", "pg_wal", "000000010000000000000001"), "secret");
    await writeFile(join(dataDir, "demo-account.json"), "{}");
    for (const [path, mode] of [
      [dataDir, 0o755],
      [join(dataDir, "pglite"), 0o777],
      [join(dataDir, "pglite", "pg_wal"), 0o755],
      [join(dataDir, "pglite", "pg_wal", "000000010000000000000001"), 0o666],
      [join(dataDir, "demo-account.json"), 0o644],
    ] as const) {
      await chmod(path, mode);
    }
    await makeDataDirPrivate(dataDir);
    expect(
      await Promise.all(
        [
          dataDir,
          join(dataDir, "pglite"),
          join(dataDir, "pglite", "pg_wal"),
          join(dataDir, "pglite", "pg_wal", "000000010000000000000001"),
          join(dataDir, "demo-account.json"),
        ].map(modeOf),
      ),
    ).toEqual([0o700, 0o700, 0o700, 0o600, 0o600]);
  });

  it("creates DATA_DIR 0700, and whatever the process creates afterwards is its owner's only", async () => {
    process.umask(0o022);
    const dataDir = join(root, "fresh", "data");
    await makeDataDirPrivate(dataDir);
    await writeFile(join(dataDir, "later.bin"), "x");
    await mkdir(join(dataDir, "later"));
    expect([
      await modeOf(dataDir),
      await modeOf(join(dataDir, "later.bin")),
      await modeOf(join(dataDir, "later")),
    ]).toEqual([0o700, 0o600, 0o700]);
  });

  it("keeps a new embedded database's files to their owner from the first open, whatever the umask", async () => {
    process.umask(0o022);
    const dataDir = join(root, "pglite");
    const database = await openDatabase({ dataDir });
    await database.close();
    const loose: string[] = [];
    const pending = [dataDir];
    for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
      const stats = await stat(path);
      if ((stats.mode & 0o077) !== 0) loose.push(`${(stats.mode & 0o777).toString(8)} ${path}`);
      if (stats.isDirectory()) pending.push(...(await readdir(path)).map((entry) => join(path, entry)));
    }
    expect(loose).toEqual([]);
  });
});
