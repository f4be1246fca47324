// CPU time used by processes, from /proc (Linux): immune to how busy the machine is, unlike latencies.
import { readFileSync } from "node:fs";

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** @param {number} pid @returns {number} user + system CPU in ms, 0 once the process is gone */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * CPU used by PostgreSQL's backends connected to `database` and by the process `apiPid` while `work` runs.
 * @param {import("pg").Client} client any connection to the server
 * @param {string} database @param {number} apiPid @param {() => Promise<void>} work
 */
export async function measureCpu(client, database, apiPid, work) {
  const backends = async () =>
    /** @type {number[]} */ (
      (await client.query("SELECT pid FROM pg_stat_activity WHERE datname = $1", [database])).rows.map(
        (row) => row.pid,
      )
    );
  const before = new Map((await backends()).map((pid) => [pid, cpuMs(pid)]));
  const apiBefore = cpuMs(apiPid);
  await work();
  let postgres = 0;
  for (const pid of await backends()) postgres += cpuMs(pid) - (before.get(pid) ?? cpuMs(pid));
  return { postgres, api: cpuMs(apiPid) - apiBefore };
}
