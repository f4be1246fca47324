// Runs the start command's entry point (what `npm start` runs after building) as a child process and
// reads what it prints. Plain JavaScript so that the benchmarks can use it too.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../apps/api/dist/main.js", import.meta.url));

/** @returns {Promise<number>} a TCP port nothing listens on right now */
export async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  server.close();
  await once(server, "close");
  return port;
}

/**
 * Rate limits and the cap on running generations turned off: for tests and benchmarks of other things,
 * which send one key's requests far faster than any default allows.
 */
export const WITHOUT_LIMITS = {
  RATE_LIMIT_GENERAL: "0",
  RATE_LIMIT_SEARCH: "0",
  RATE_LIMIT_GENERATION_CREATE: "0",
  RATE_LIMIT_WEBHOOK_TEST: "0",
  RATE_LIMIT_DISPLAY: "0",
  RATE_LIMIT_API_KEY_CREATE: "0",
  MAX_ACTIVE_GENERATIONS: "0",
};

/**
 * @param {Record<string, string>} env the whole environment of the child, besides PATH
 * @param {string[]} [nodeOptions] Node's own options, such as --cpu-prof (which NODE_OPTIONS refuses)
 * @returns {{ child: import("node:child_process").ChildProcess, output: () => string }}
 */
export function start(env, nodeOptions = []) {
  let output = "";
  const child = spawn(process.execPath, [...nodeOptions, MAIN], {
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  return { child, output: () => output };
}

/**
 * Waits for a line of the start banner matching `pattern` and answers its first group.
 * @param {ReturnType<typeof start>} started
 * @param {RegExp} pattern
 * @returns {Promise<string>}
 */
async function bannerValue(started, pattern, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = pattern.exec(started.output())?.[1];
    if (value) return value;
    if (started.child.exitCode !== null) throw new Error(`exited early:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no ${pattern} in the start banner within ${timeoutMs} ms:\n${started.output()}`);
}

/**
 * Waits for the "Demo API key:" line of the start banner.
 * @param {ReturnType<typeof start>} started
 */
export const demoKey = (started, timeoutMs = 60_000) =>
  bannerValue(started, /Demo API key:\s+(ih_\S+)/, timeoutMs);

/**
 * Waits for the banner's "API:" line, printed once the server listens, and answers the server's base URL
 * (with PORT=0, on the port the system chose), on the loopback address the tests' servers bind.
 * @param {ReturnType<typeof start>} started
 */
export const apiBase = async (started, timeoutMs = 60_000) =>
  (await bannerValue(started, /API:\s+(http\S+)\/v1\n/, timeoutMs)).replace("//localhost:", "//127.0.0.1:");

/**
 * Sends SIGTERM and waits for the exit code.
 * @param {ReturnType<typeof start>} started
 * @returns {Promise<number | null>}
 */
export async function stop(started) {
  // A child killed by a signal has no exit code, only its signal.
  if (started.child.exitCode !== null || started.child.signalCode !== null) return started.child.exitCode;
  started.child.kill("SIGTERM");
  const [code] = await once(started.child, "exit");
  return code;
}
