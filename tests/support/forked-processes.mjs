// The processes a process forked, from /proc (Linux). Plain JavaScript so that the benchmarks can use it too.
import { readdirSync, readFileSync } from "node:fs";

/**
 * @param {number} pid
 * @returns {number[]} the running processes `pid` forked, by any of its threads; none once it is gone
 */
export function forkedBy(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((thread) =>
      readFileSync(`/proc/${pid}/task/${thread}/children`, "utf8").split(" ").filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}
