import swc from "unplugin-swc";
import { defineConfig } from "vitest/config";

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
    include: [
      "packages/*/src/**/*.spec.ts",
      "packages/*/test/**/*.spec.ts",
      "apps/*/src/**/*.spec.ts",
      "apps/*/test/**/*.spec.ts",
      "tests/**/*.spec.ts",
    ],
    globalSetup: ["tests/support/global-setup.ts"],
    // .ci/node24 keeps its run's report beside the first run's.
    reporters: [
      "default",
      ["json", { outputFile: process.env.VITEST_JSON_REPORT ?? "test-results/vitest.json" }],
    ],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
