import { fileURLToPath } from "node:url";
import swc from "unplugin-swc";
import { defineConfig } from "vitest/config";

// The tiers are chosen by where a spec lives, so that a new file lands in one without an edit here:
// beside the code (`src/`) is unit, a package's or app's `test/` folder is integration, and the root
// `tests/` folder or a `*.e2e.spec.ts` name anywhere is end-to-end.
const E2E = ["tests/**/*.spec.ts", "{apps,packages}/*/{src,test}/**/*.e2e.spec.ts"];

/** Migrates the template database each integration or end-to-end file clones. */
export const GLOBAL_SETUP = ["tests/support/global-setup.ts"];

export default defineConfig({
  // Vite's own TypeScript transform would run first and drop the imports decorator metadata refers to.
  oxc: false,
  // SWC emits the decorator metadata Nest's dependency injection reads; esbuild does not.
  plugins: [
    swc.vite({
      tsconfigFile: false,
      jsc: {
        target: "es2023",
        parser: { syntax: "typescript", decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        keepClassNames: true,
      },
    }),
  ],
  test: {
    // .ci/node24 keeps its run's report beside the first run's.
    reporters: [
      "default",
      ["json", { outputFile: process.env.VITEST_JSON_REPORT ?? "test-results/vitest.json" }],
    ],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // expect.poll waits for a condition: a deadline that a busy machine's slow first render still meets.
    expect: { poll: { timeout: 20_000 } },
    // The unit tier runs first, alone; then the integration and end-to-end files together, side by side,
    // each with its own database clone, Redis key prefix, ports and data folder (one group, so the longest
    // files of both tiers share the workers instead of each tier waiting for its own last file). Two at a
    // time on a 2-core machine: the cores are busy with two (a third made no file finish sooner). Test files
    // keep no state in modules, so a worker imports Nest, Prisma, BullMQ and sharp once for all its files
    // (`isolate: false`, every tier) rather than once per file: a file that mocks a module imports its subject
    // afresh beside the mock and takes the mock away after.
    maxWorkers: 2,
    isolate: false,
    projects: [
      {
        extends: true,
        // No database, no Redis, no build, no child process: the workspace packages are their
        // TypeScript sources (only Prisma's generated client must exist, which `npm run test:unit` makes).
        resolve: {
          alias: [
            {
              find: /^@imagehub\/(domain|db|client|chat-core)$/,
              replacement: fileURLToPath(new URL("./packages/$1/src/index.ts", import.meta.url)),
            },
          ],
        },
        test: {
          name: "unit",
          include: ["{apps,packages}/*/src/**/*.spec.ts"],
          exclude: E2E,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["{apps,packages}/*/test/**/*.spec.ts"],
          exclude: E2E,
          globalSetup: GLOBAL_SETUP,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: E2E,
          globalSetup: GLOBAL_SETUP,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
