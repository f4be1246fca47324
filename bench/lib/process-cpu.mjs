// CPU time used by processes, from /proc (Linux): immune to how busy the machine is, unlike latencies.
// (cpuMs: a thread that ended takes its time with it; processCpuMs keeps it, to the tick.)
import { readdirSync, readFileSync } from "node:fs";
import { forkedBy } from "../../tests/support/forked-processes.mjs";

const TICK_MS = 10; // USER_HZ is 100 on Linux

/**
 * @param {number} pid
 * @returns {number} CPU time of the process's threads in ms (to the nanosecond), 0 once the process is gone
 */
export function cpuMs(pid) {
  try {
    let nanoseconds = 0;
    for (const thread of readdirSync(`/proc/${pid}/task`)) {
      nanoseconds += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, "utf8").split(" ")[0]);
    }
    return nanoseconds / 1e6;
  } catch {
    return 0;
  }
}

/**
 * @param {number} pid
 * @returns {number} CPU time of the process and of the processes it forked (an API supervisor's, with
 * API_PROCESSES) in ms, threads and forked processes that ended included (to the 10 ms tick), 0 once the
 * process is gone: for processes whose threads come and go (libvips' pool)
 */
export function processCpuMs(pid) {
  try {
    // The fields after the command, whose name may hold spaces: utime, stime, cutime and cstime are the
    // 12th to 15th (cutime and cstime: the forked processes that ended).
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    const ticks = fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0);
    return ticks * TICK_MS + forkedBy(pid).reduce((sum, child) => sum + processCpuMs(child), 0);
  } catch {
    return 0;
  }
}

/** @returns {{ busy: number, total: number }} the machine's CPU time in all and busy (not idle nor waiting), ms */
function machineMs() {
  const [, ...ticks] = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").split(/\s+/).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = ticks;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy * TICK_MS, total: (busy + idle + iowait) * TICK_MS };
}

/** @returns {number} this process's user + system CPU in ms */
export const ownMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * CPU used while `work` runs, in ms: by PostgreSQL's backends connected to `database`, by each process of
 * `servers` (name → pid), by this process (the load generator, when there is one), and the share of the
 * machine's CPU that was busy in all.
 * @template {string} Name
 * @param {import("pg").Client} client any connection to the server
 * @param {string} database @param {Record<Name, number>} servers @param {() => Promise<void>} work
 * @returns {Promise<{ postgres: number, servers: Record<Name, number>, loadGenerator: number, machineBusy: number }>}
 */
export async function measureCpu(client, database, servers, work) {
  const backends = async () =>
    /** @type {number[]} */ (
      // Not this connection's own: asking costs its backend CPU too.
      (
        await client.query(
          "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
          [database],
        )
      ).rows.map((row) => row.pid)
    );
  const before = new Map((await backends()).map((pid) => [pid, cpuMs(pid)]));
  const entries = /** @type {[Name, number][]} */ (Object.entries(servers));
  const serversBefore = entries.map(([, pid]) => processCpuMs(pid));
  const ownBefore = ownMs();
  const machineBefore = machineMs();
  await work();
  const machineAfter = machineMs();
  const loadGenerator = ownMs() - ownBefore;
  let postgres = 0;
  for (const pid of await backends()) postgres += cpuMs(pid) - (before.get(pid) ?? 0); // a backend opened meanwhile: all of it
  return {
    postgres,
    servers: /** @type {Record<Name, number>} */ (
      Object.fromEntries(
        entries.map(([name, pid], at) => [name, processCpuMs(pid) - (serversBefore[at] ?? 0)]),
      )
    ),
    loadGenerator,
    machineBusy: (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total),
  };
}
