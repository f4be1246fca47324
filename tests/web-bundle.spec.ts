import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build, type Manifest } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const WEB_APP = new URL("../apps/web/", import.meta.url).pathname;

/** The source modules of the chunks a browser loads before the first page shows: the entry and its static imports. */
async function firstLoadSources(outDir: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(outDir, ".vite/manifest.json"), "utf8")) as Manifest;
  const chunkKeys = new Set<string>();
  const visit = (key: string) => {
    if (chunkKeys.has(key)) return;
    chunkKeys.add(key);
    for (const imported of manifest[key]?.imports ?? []) visit(imported);
  };
  for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) visit(key);
  const sources = await Promise.all(
    [...chunkKeys].map(async (key) => {
      const file = manifest[key]?.file ?? "";
      return (JSON.parse(await readFile(join(outDir, `${file}.map`), "utf8")) as { sources: string[] })
        .sources;
    }),
  );
  return sources.flat();
}

describe("the web app's bundle", () => {
  let outDir: string;

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), "imagehub-web-bundle-"));
    await build({
      root: WEB_APP,
      configFile: join(WEB_APP, "vite.config.ts"),
      logLevel: "silent",
      build: { outDir, emptyOutDir: true, sourcemap: true, manifest: true },
    });
  });
  afterAll(async () => {
    await rm(outDir, { recursive: true, force: true });
  });

  it("loads first only the sign-in routes of @imagehub/domain: each page's schemas come with that page", async () => {
    const domainModules = (await firstLoadSources(outDir))
      .filter((source) => source.includes("packages/domain/"))
      .map((source) => source.replace(/.*packages\/domain\/dist\//, ""));
    expect(domainModules.sort()).toEqual([
      "account-area.schema.js",
      "accounts.schema.js",
      "common.schema.js",
      "operation.js",
      "session-operations.js",
    ]);
  });
});
