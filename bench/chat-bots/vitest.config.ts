import { defineConfig } from "vitest/config";
import base from "../../vitest.config.js";

/** `npm run bench:chat-bots`: the bots' load specs alone, kept out of `npm test` for their length. */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ["bench/chat-bots/*.spec.ts"], reporters: ["default"] },
});
