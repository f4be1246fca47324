// The integration and end-to-end tiers while two busy loops keep the machine's cores occupied: timing
// behaviour under load, the way a shared CI runner treats the suite. Arguments go to Vitest; the exit code
// is Vitest's.
import { spawn } from "node:child_process";
import { once } from "node:events";

const BUSY_LOOPS = 2;

const loops = Array.from({ length: BUSY_LOOPS }, () =>
  spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
);
const vitest = spawn(
  process.execPath,
  [
    "node_modules/vitest/vitest.mjs",
    "run",
    "--project",
    "integration",
    "--project",
    "e2e",
    ...process.argv.slice(2),
  ],
  { stdio: "inherit" },
);
const [code, signal] = await once(vitest, "exit");
for (const loop of loops) loop.kill("SIGKILL");
process.exit(code ?? (signal ? 1 : 0));
