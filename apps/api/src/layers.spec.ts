import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

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
 * domain's errors (common/domain-errors.ts); these files still throw Nest's HTTP exceptions.
 */
const STILL_SPEAKING_HTTP = new Set([
  "generations/generations.service.ts",
  "idempotency/idempotency.service.ts",
]);
const BELOW_HTTP = /\.(service|repository|statements|state-machine)\.ts$/;

const SOURCE = dirname(fileURLToPath(import.meta.url));

/** Every source file (specs aside: a test may reach anywhere), with the files it imports. */
function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith(".ts") && !path.endsWith(".spec.ts")) {
        const { importedFiles } = ts.preProcessFile(readFileSync(path, "utf8"), true, true);
        graph.set(
          relative(root, path),
          importedFiles
            .map(({ fileName }) => fileName)
            .filter((name) => name.startsWith("."))
            .map((name) => relative(root, normalize(join(folder, name.replace(/\.js$/, ".ts"))))),
        );
      }
    }
  };
  walk(root);
  return graph;
}

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

/** The groups of files that import each other, directly or through others (Tarjan's algorithm). */
function importCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    lowest.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        lowest.set(file, Math.min(lowest.get(file) as number, lowest.get(target) as number));
      } else if (onStack.has(target)) {
        lowest.set(file, Math.min(lowest.get(file) as number, index.get(target) as number));
      }
    }
    if (lowest.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || graph.get(file)?.includes(file)) cycles.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
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
