import { execFile } from "node:child_process";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const REPOSITORY = fileURLToPath(new URL("../", import.meta.url));

describe("package-lock.json", () => {
  // The Dockerfile installs with npm ci, which refuses a lock file that is out of step with the manifests
  // (one that lacks other platforms' optional packages, for instance).
  it("is one npm ci accepts", async () => {
    const copy = await mkdtemp(join(tmpdir(), "imagehub-lock-"));
    try {
      for (const file of ["package.json", "package-lock.json"]) {
        await cp(join(REPOSITORY, file), join(copy, file));
      }
      for (const folder of ["apps", "packages"]) {
        for (const name of await readdir(join(REPOSITORY, folder))) {
          const manifest = join(folder, name, "package.json");
          await cp(join(REPOSITORY, manifest), join(copy, manifest)).catch(() => undefined);
        }
      }
      const { stdout } = await promisify(execFile)(
        "npm",
        ["ci", "--dry-run", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"],
        { cwd: copy },
      );
      expect(stdout).toMatch(/added \d+ packages/);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});
