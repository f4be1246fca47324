import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SUMMARY = join(import.meta.dirname, "..", "scripts", "test-summary.mjs");

/** A Vitest JSON report of `files`: each a name, its load error if any, and its tests' outcomes. */
function report(files: { name: string; message?: string; tests: [string, "passed" | "failed"][] }[]) {
  const tests = files.flatMap((file) => file.tests);
  const failed = tests.filter(([, status]) => status === "failed").length;
  return {
    success: failed === 0 && files.every((file) => !file.message),
    numPassedTests: tests.length - failed,
    numFailedTests: failed,
    numPendingTests: 0,
    numTodoTests: 0,
    testResults: files.map((file) => ({
      name: join(process.cwd(), file.name),
      message: file.message ?? "",
      status: file.message || file.tests.some(([, status]) => status === "failed") ? "failed" : "passed",
      assertionResults: file.tests.map(([fullName, status]) => ({
        fullName,
        status,
        failureMessages: status === "failed" ? [`AssertionError: ${fullName}\n    at a stack line`] : [],
      })),
    })),
  };
}

describe("scripts/test-summary.mjs, CI's last lines", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "test-summary-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function summarize(reports: Record<string, ReturnType<typeof report>>, ...checks: string[]) {
    const paths = await Promise.all(
      Object.entries(reports).map(async ([name, content]) => {
        const path = join(dir, name);
        await writeFile(path, JSON.stringify(content));
        return path;
      }),
    );
    const run = spawnSync(process.execPath, [SUMMARY, ...paths, ...checks], { encoding: "utf8" });
    return { status: run.status, lines: run.stdout.trimEnd().split("\n") };
  }

  it("names each failed test and file above the sum of every run, on the last line", async () => {
    const { status, lines } = await summarize(
      {
        "node20.json": report([
          {
            name: "apps/api/a.spec.ts",
            tests: [
              ["search pages", "passed"],
              ["search ranks", "failed"],
            ],
          },
          { name: "apps/api/b.spec.ts", message: "Error: Cannot find module 'x'\n    at import", tests: [] },
        ]),
        "node24.json": report([{ name: "apps/api/a.spec.ts", tests: [["search pages", "passed"]] }]),
      },
      "lint",
    );
    expect(status).toBe(1);
    expect(lines).toEqual([
      "lint failed",
      `failed in ${join(dir, "node20.json")}: apps/api/a.spec.ts > search ranks: AssertionError: search ranks`,
      `failed in ${join(dir, "node20.json")}: apps/api/b.spec.ts: Error: Cannot find module 'x'`,
      "2 passed, 3 failed",
    ]);
  });

  it("exits 0 with the plain sum alone when everything passed", async () => {
    const passing = report([{ name: "apps/api/a.spec.ts", tests: [["search pages", "passed"]] }]);
    expect(await summarize({ "passing.json": passing })).toEqual({
      status: 0,
      lines: ["1 passed, 0 failed"],
    });
  });
});
