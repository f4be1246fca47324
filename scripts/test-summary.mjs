// Prints Vitest's JSON reports as the plain line CI reads, "N passed, M failed", summing every report (the
// suite's run on each Node version); exits 1 when anything failed or when a report is missing (the build or
// the runner failed before any test ran), which counts as one failure. The arguments are the reports
// (`*.json`, test-results/vitest.json by default) and the names of the other checks that failed (lint,
// typecheck): each of those counts as one failure too. Each failed test and file is named just above the
// summary, with its report, so that a log's last lines say what failed however long the run before them.
import { readFile } from "node:fs/promises";
import { relative } from "node:path";

/** The first line of a failure's message, which names what was expected. */
const firstLine = (message = "") => message.split("\n", 1)[0];

const args = process.argv.slice(2);
const reports = args.filter((arg) => arg.endsWith(".json"));
const failedChecks = args.filter((arg) => !arg.endsWith(".json"));
if (reports.length === 0) reports.push("test-results/vitest.json");
for (const check of failedChecks) console.log(`${check} failed`);

let passed = 0;
let failed = failedChecks.length;
let skipped = 0;
for (const file of reports) {
  try {
    /** @type {{ success: boolean, numPassedTests: number, numFailedTests: number, numPendingTests: number, numTodoTests: number, testResults: { name: string, message: string, status: string, assertionResults: { status: string, fullName: string, failureMessages: string[] }[] }[] }} */
    const report = JSON.parse(await readFile(file, "utf8"));
    // Files that fail to load count no tests but are failures all the same.
    const failedSuites = report.testResults.filter(
      (suite) => suite.status === "failed" && suite.assertionResults.length === 0,
    );
    for (const suite of report.testResults) {
      const where = relative(process.cwd(), suite.name);
      if (failedSuites.includes(suite))
        console.log(`failed in ${file}: ${where}: ${firstLine(suite.message)}`);
      for (const test of suite.assertionResults.filter((result) => result.status === "failed")) {
        console.log(`failed in ${file}: ${where} > ${test.fullName}: ${firstLine(test.failureMessages[0])}`);
      }
    }
    passed += report.numPassedTests;
    failed += report.numFailedTests + failedSuites.length;
    // A run that failed without a failed test (an error outside any test) is a failure too.
    if (!report.success && report.numFailedTests + failedSuites.length === 0) failed += 1;
    skipped += report.numPendingTests + report.numTodoTests;
  } catch (error) {
    console.error(`No test report at ${file}: ${error instanceof Error ? error.message : error}`);
    failed += 1;
  }
}
if (skipped) console.log(`${skipped} skipped`);
// The last line is the plain summary CI reads.
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
