import { defineConfig } from "vitest/config";
import base, { GLOBAL_SETUP } from "../../vitest.config.js";

/** `npm run bench:chat-bots`: the bots' load specs alone, kept out of `npm test` for their length. */
const { projects: _tiers, ...shared } = base.test ?? {};
export default defineConfig({
  ...base,
  test: {
    ...shared,
    include: ["bench/chat-bots/*.spec.ts"],
    globalSetup: GLOBAL_SETUP,
    reporters: ["default"],
  },
});
