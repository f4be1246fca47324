import { readdirSync, readFileSync } from "node:fs";
import { join, normalize, relative } from "node:path";
import ts from "typescript";

/** Every source file (specs aside: a test may reach anywhere), with the files it imports. */
export function importGraph(root: string): Map<string, string[]> {
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

/** The groups of files that import each other, directly or through others (Tarjan's algorithm). */
export function importCycles(graph: Map<string, string[]>): string[][] {
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
