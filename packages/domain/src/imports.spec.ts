import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importCycles, importGraph } from "../../../tests/support/import-graph.js";

describe("the domain package's modules", () => {
  // A module read while the one importing it is still loading sees its constants uninitialised.
  it("have no import cycle", () => {
    expect(importCycles(importGraph(dirname(fileURLToPath(import.meta.url))))).toEqual([]);
  });
});
