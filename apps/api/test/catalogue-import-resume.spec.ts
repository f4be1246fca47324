import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import {
  ADMIN_CLI,
  CLI_RUNS_MS,
  catalogueWorkspace,
  type ImportSummary,
  line,
} from "../../../tests/support/catalogue-workspace.js";
import { BLUE, GREEN, RED } from "../../../tests/support/fake-pictures.js";

describe("catalogue import stopped midway", { timeout: CLI_RUNS_MS }, () => {
  const workspace = catalogueWorkspace();

  it("resumes after being killed midway: every image whole or absent, then all of them once", async () => {
    const count = 240;
    const lines = [];
    for (let index = 0; index < count; index++) {
      const name = await workspace.picture(`kill-${index}.png`, 640 + (index % 7) * 16, 480, {
        colour: [RED, GREEN, BLUE][index % 3],
      });
      lines.push(line(`kill-${String(index).padStart(3, "0")}`, { file: name, price: 1 + (index % 3) }));
    }
    const manifest = await workspace.writeManifest(lines);
    const args = [
      ADMIN_CLI,
      "catalogue",
      "import",
      "--manifest",
      manifest,
      "--images",
      workspace.picturesDir,
    ];
    const child: ChildProcess = spawn(process.execPath, args, {
      env: workspace.cliEnvironment(workspace.api.database.url),
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

    const partial = await workspace.importedRows("kill-");
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(count);
    for (const row of partial) expect(Object.keys(row.renditions)).toEqual(["original"]);
    await workspace.expectWholeImages();
    // The stopped import's images wait for the search index, committed with them.
    const waiting = await workspace.query("SELECT image_id FROM search_index_pending");
    expect(waiting.length).toBe(partial.length);

    const resumed = await workspace.admin([
      "catalogue",
      "import",
      "--manifest",
      manifest,
      "--images",
      workspace.picturesDir,
      "--json",
    ]);
    expect(resumed.code).toBe(0);
    const summary = JSON.parse(resumed.stdout) as ImportSummary;
    expect(summary).toMatchObject({ added: count - partial.length, unchanged: partial.length, skipped: 0 });
    const rows = await workspace.importedRows("kill-");
    expect(rows.map((row) => row.external_id)).toEqual(lines.map((entry) => entry.externalId));
    expect(rows.filter((row) => partial.some((before) => before.id === row.id)).length).toBe(partial.length);
    const { unreferenced } = await workspace.expectWholeImages();
    expect(unreferenced).toEqual([]);
    // Every image is indexed once: those the stopped import left waiting as well.
    expect(await workspace.query("SELECT image_id FROM search_index_pending")).toEqual([]);
    const indexed = await workspace.query<{ image_id: string }>(
      `SELECT s.image_id FROM search_documents s JOIN images i ON i.id = s.image_id
       WHERE i.external_id LIKE 'kill-%'`,
    );
    expect(indexed.length).toBe(count);
  });
});
