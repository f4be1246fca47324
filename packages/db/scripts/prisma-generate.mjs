// `prisma generate` needs no schema engine, but the CLI refuses to start unless it finds one; the engine's
// download is not reachable everywhere, so point the CLI at any existing file (this node binary).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const prismaCli = createRequire(import.meta.url).resolve("prisma/build/index.js");
const result = spawnSync(process.execPath, [prismaCli, "generate"], {
  stdio: ["ignore", "ignore", "inherit"],
  env: { PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1", ...process.env },
});
process.exit(result.status ?? 1);
