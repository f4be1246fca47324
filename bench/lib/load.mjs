// HTTP load with wrk (one request again and again) and autocannon (a mix of bodies), and SQL load with pgbench,
// reported the same way: p50/p99 latency and rate.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import autocannon from "autocannon";
import { percentile } from "./stats.mjs";

const run = promisify(execFile);

/**
 * Runs `use` with a folder of its own for a load generator's script and logs, removed after.
 * @template T @param {string} name @param {(dir: string) => Promise<T>} use @returns {Promise<T>}
 */
async function inScratchFolder(name, use) {
  const dir = await mkdtemp(join(tmpdir(), `imagehub-${name}-`));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);

/** wrk's latency figures in ms: "812.00us", "7.00ms", "1.20s". @param {string} figure */
function wrkMs(figure) {
  const [, value = "NaN", unit] = /^([\d.]+)(us|ms|s)$/.exec(figure) ?? [];
  return Number(value) * (unit === "us" ? 0.001 : unit === "s" ? 1000 : 1);
}

/**
 * A Lua long string holding `text` as it is (no escapes), at a level of brackets that neither `text` nor its
 * last character with the closing bracket holds (a JSON array ends with one).
 */
function luaString(/** @type {string} */ text) {
  let level = "";
  while (`${text}]`.includes(`]${level}]`)) level += "=";
  return `[${level}[${text}]${level}]`;
}

/**
 * One request sent again and again by wrk (Debian's `wrk` package), CONNECTIONS connections on one thread:
 * a load generator in C, whose own cost per request (20–45 µs of CPU here, the body counted and dropped) leaves
 * the cores to the server measured, where a Node.js one reading every body can take as much CPU as the server.
 * `clientMs` is the CPU time wrk used.
 * @param {{ url: string, method?: string, headers?: Record<string, string>, body?: string }} request
 * @param {{ durationS?: number }} [options]
 * @returns {Promise<{ p50: number, p99: number, rate: number, errors: number, clientMs: number }>}
 */
export async function httpLoad(request, { durationS = DURATION_S } = {}) {
  return inScratchFolder("wrk", async (dir) => {
    const script = join(dir, "request.lua");
    // A space inside the brackets: `headers[[[` would open a long string.
    const headers = Object.entries(request.headers ?? {})
      .map(([name, value]) => `wrk.headers[ ${luaString(name)} ] = ${luaString(value)}\n`)
      .join("");
    const body = request.body === undefined ? "" : `wrk.body = ${luaString(request.body)}\n`;
    await writeFile(script, `wrk.method = "${request.method ?? "GET"}"\n${headers}${body}`);
    const wrk = ["-t1", `-c${CONNECTIONS}`, `-d${durationS}s`, "--latency", "-s", script, request.url];
    // bash's `times` prints, on its second line, the CPU its children used: wrk's own, to the millisecond.
    const shell = '"$@"; status=$?; times; exit $status';
    const { stdout } = await run("bash", ["-c", shell, "wrk", "wrk", ...wrk]).catch((error) => {
      if (/wrk: (command )?not found/.test(String(error.stderr))) {
        throw new Error("bench: wrk is not installed (Debian: apt-get install wrk)");
      }
      throw error;
    });
    const figure = (/** @type {RegExp} */ pattern) => pattern.exec(stdout)?.[1];
    const [, userMin = 0, userS = 0, systemMin = 0, systemS = 0] =
      /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(stdout.trim())?.map(Number) ?? [];
    const sockets = (figure(/Socket errors: (.*)/) ?? "").match(/\d+/g)?.map(Number) ?? [];
    return {
      p50: wrkMs(figure(/^\s+50%\s+(\S+)/m) ?? ""),
      p99: wrkMs(figure(/^\s+99%\s+(\S+)/m) ?? ""),
      rate: Number(figure(/Requests\/sec:\s+([\d.]+)/)),
      // A 304 or a redirect is the answer asked for, not an error.
      errors: Number(figure(/Non-2xx or 3xx responses: (\d+)/) ?? 0) + sockets.reduce((sum, n) => sum + n, 0),
      clientMs: 1000 * (60 * (userMin + systemMin) + userS + systemS),
    };
  });
}

/**
 * HTTP load where every request carries the next body `nextBody` gives (one JSON POST route), with each
 * response's time kept so that any percentile can be read.
 * @param {{ url: string, headers?: Record<string, string> }} target
 * @param {() => unknown} nextBody
 * @param {{ durationS?: number }} [options]
 * @returns {Promise<{ p50: number, p95: number, p99: number, rate: number, errors: number }>}
 */
export async function httpMixLoad(target, nextBody, { durationS = DURATION_S } = {}) {
  /** @type {number[]} */
  const latencies = [];
  let errors = 0;
  /** @param {unknown} _client @param {number} statusCode @param {number} _bytes @param {number} responseTime */
  const onResponse = (_client, statusCode, _bytes, responseTime) => {
    latencies.push(responseTime);
    if (statusCode >= 300) errors++;
  };
  /** @type {autocannon.Result} */
  const result = await new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: "POST",
        headers: { ...target.headers, "content-type": "application/json" },
        connections: CONNECTIONS,
        duration: durationS,
        requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify(nextBody()) }) }],
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    // The tracker passes the client first, which @types/autocannon leaves out.
    instance.on("response", /** @type {(...args: any[]) => void} */ (onResponse));
  });
  return {
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    rate: latencies.length / durationS,
    errors: errors + result.errors + result.timeouts,
  };
}

/**
 * Replays statements with pgbench at the same concurrency: the ceiling PostgreSQL itself sets.
 * @param {string} databaseUrl
 * @param {string[]} statements SQL with parameters already inlined; run in order as one pgbench transaction
 * @param {{ durationS?: number }} [options]
 * @returns {Promise<{ p50: number, p99: number, rate: number, errors: number }>}
 */
export async function pgbenchLoad(databaseUrl, statements, { durationS = DURATION_S } = {}) {
  return inScratchFolder("pgbench", async (dir) => {
    const script = join(dir, "script.sql");
    // pgbench takes a statement per line: comment lines go first, or the joined line would be all comment.
    const oneLine = (/** @type {string} */ sql) =>
      sql
        .split("\n")
        .filter((line) => !line.trim().startsWith("--"))
        .join(" ")
        .replace(/\s+/g, " ")
        .trim();
    await writeFile(script, `${statements.map(oneLine).join(";\n")};\n`);
    const url = new URL(databaseUrl);
    const { stdout } = await run(
      "pgbench",
      [
        "-n",
        "-c",
        String(CONNECTIONS),
        "-j",
        "2",
        "-T",
        String(durationS),
        "-f",
        script,
        "-l",
        "--log-prefix",
        join(dir, "log"),
        "-h",
        url.hostname,
        "-p",
        url.port || "5432",
        "-U",
        decodeURIComponent(url.username || "postgres"),
        url.pathname.slice(1),
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    const latencies = [];
    for (const file of (await readdir(dir)).filter((name) => name.startsWith("log"))) {
      for (const line of (await readFile(join(dir, file), "utf8")).split("\n")) {
        const microseconds = Number(line.split(" ")[2]);
        if (Number.isFinite(microseconds) && line) latencies.push(microseconds / 1000);
      }
    }
    const rate = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? 0);
    const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), rate, errors: failed };
  });
}

/**
 * Turns a statement the app logged (`$1` placeholders and JSON params) into plain SQL for pgbench.
 * @param {string} sql @param {string} paramsJson
 */
export function inlineParameters(sql, paramsJson) {
  /** @type {unknown[]} */
  const params = JSON.parse(paramsJson);
  return sql.replace(/\$(\d+)/g, (_, index) => literal(params[Number(index) - 1]));
}

/** @param {unknown} value @returns {string} */
function literal(value) {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(",")}]`;
  return `'${String(value).replaceAll("'", "''")}'`;
}
