import { readFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importCycles, importGraph } from "../../../tests/support/import-graph.js";

/**
 * The folders of apps/api/src from the top down ("." is the application's root files). A file may import
 * its own folder and those of the layers below its own: never a folder beside it or above it, so that
 * machinery (`common/`, `jobs/`) knows no area and what knows several areas is composed above them.
 */
const LAYERS: readonly (readonly string[])[] = [
  [".", "admin"],
  ["embedded", "auth"],
  ["generations", "purchases", "account-area"],
  ["catalogue", "webhooks"],
  ["idempotency", "engines", "docs", "health", "web-app", "queue-dashboard"],
  ["accounts"],
  ["jobs"],
  ["metrics", "storage"],
  ["common"],
];

/**
 * Below the HTTP layer (controllers, guards, interceptors, the exception filter) code refuses with the
 * domain's errors (common/domain-errors.ts); the idempotency service still answers a request under way
 * with RetryLaterException (409 with Retry-After).
 */
const STILL_SPEAKING_HTTP = new Set(["idempotency/idempotency.service.ts"]);
const BELOW_HTTP = /\.(service|repository|statements|state-machine)\.ts$/;

const SOURCE = dirname(fileURLToPath(import.meta.url));

/** The top folder of a file of apps/api/src, "." for the root's own files. */
function folderOf(file: string): string {
  const parts = file.split(sep);
  return parts.length > 1 ? (parts[0] as string) : ".";
}

function layerOf(folder: string): number {
  return LAYERS.findIndex((layer) => layer.includes(folder));
}

/** The imports that point up or sideways between folders, as "from -> to". */
function upwardImports(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    const from = folderOf(file);
    for (const target of imports) {
      const to = folderOf(target);
      if (to !== from && layerOf(to) <= layerOf(from)) found.push(`${file} -> ${target}`);
    }
  }
  return found;
}

describe("the api's layers", () => {
  const graph = importGraph(SOURCE);

  it("place every folder in one layer", () => {
    const folders = new Set([...graph.keys()].map(folderOf));
    expect([...folders].filter((folder) => layerOf(folder) === -1)).toEqual([]);
  });

  it("import only downwards between folders", () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it("have no import cycle between files", () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it("refuse with domain errors below the HTTP layer", () => {
    const speakingHttp = [...graph.keys()].filter(
      (file) =>
        BELOW_HTTP.test(file) &&
        !STILL_SPEAKING_HTTP.has(file) &&
        /\b[A-Z]\w*Exception\b/.test(readFileSync(join(SOURCE, file), "utf8")),
    );
    expect(speakingHttp).toEqual([]);
  });

  it("find an upward import and a cycle when there is one", () => {
    const bad = new Map([
      ["common/config.ts", ["accounts/accounts.service.ts"]],
      ["accounts/accounts.service.ts", ["common/config.ts"]],
    ]);
    expect(upwardImports(bad)).toEqual(["common/config.ts -> accounts/accounts.service.ts"]);
    expect(importCycles(bad)).toEqual([["accounts/accounts.service.ts", "common/config.ts"]]);
  });
});
