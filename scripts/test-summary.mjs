// Prints Vitest's JSON report as the plain line CI reads, "N passed, M failed"; exits 1 when anything failed
// or when there is no report (the build or the runner failed before any test ran). The arguments after the
// report name the other checks that failed (lint, typecheck): each counts as one failure.
import { readFile } from "node:fs/promises";

const [file = "test-results/vitest.json", ...failedChecks] = process.argv.slice(2);
for (const check of failedChecks) console.log(`${check} failed`);
try {
  /** @type {{ success: boolean, numPassedTests: number, numFailedTests: number, numPendingTests: number, numTodoTests: number, testResults: { status: string, assertionResults: unknown[] }[] }} */
  const report = JSON.parse(await readFile(file, "utf8"));
  // Files that fail to load count no tests but are failures all the same.
  const failedSuites = report.testResults.filter(
    (suite) => suite.status === "failed" && suite.assertionResults.length === 0,
  );
  const failed = report.numFailedTests + failedSuites.length + failedChecks.length;
  const skipped = report.numPendingTests + report.numTodoTests;
  if (skipped) console.log(`${skipped} skipped`);
  // The last line is the plain summary CI reads.
  console.log(`${report.numPassedTests} passed, ${failed} failed`);
  process.exit(failed > 0 || !report.success ? 1 : 0);
} catch (error) {
  console.error(`No test report at ${file}: ${error instanceof Error ? error.message : error}`);
  console.log(`0 passed, ${1 + failedChecks.length} failed`);
  process.exit(1);
}
