import cluster, { type Worker } from "node:cluster";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { AppConfig } from "./common/config.js";
import { holdFreePort } from "./embedded/held-port.js";
import { ensureRedis } from "./embedded/local-redis.js";

/**
 * Set on the first process a supervisor forks: it does what a start does once (seeding an empty catalogue,
 * the demo account, the start banner). Its replacement, if it dies, does not: it only serves HTTP.
 */
const RUNS_START_TASKS = "IMAGEHUB_RUNS_START_TASKS";

/**
 * A replacement for a process that stopped is forked after this, doubled for each replacement of the same
 * process that stops again before it listens (PostgreSQL away meanwhile), up to LONGEST_RESTART_DELAY_MS:
 * a process crashing at once cannot spin.
 */
const RESTART_DELAY_MS = 1_000;
const LONGEST_RESTART_DELAY_MS = 30_000;

/** Whether this process does the once-per-start work: a process of its own, or a supervisor's first. */
export function runsStartTasks(): boolean {
  return !cluster.isWorker || process.env[RUNS_START_TASKS] === "true";
}

/**
 * API_PROCESSES above 1: forks that many API processes on one port (the primary hands each new connection
 * to the next process) and keeps them running. Until each has listened once, a process that stops stops
 * them all (bad settings, the database away at start) and the supervisor exits 1; from then on a process
 * that stops is replaced. SIGTERM and SIGINT are passed on; the supervisor exits once every process has.
 */
export async function superviseApiProcesses(config: AppConfig, logger: Logger): Promise<void> {
  // Started here once, not by each process: they find it answering.
  const localRedis = await ensureRedis(config, logger);
  const heldPort = config.http.port === 0 ? await holdFreePort(config.http.host) : undefined;
  const port = heldPort?.port ?? config.http.port;
  await heldPort?.release();
  const metricsPort = config.metrics.port;

  const indexOf = new Map<number, number>();
  const listened = new Set<number>();
  /** By process index: its replacements that stopped before they listened, in a row. */
  const failedRestarts = new Map<number, number>();
  let isStarting = true;
  /** Replacements waiting for their delay: a stop cancels them. */
  const restarts = new Set<NodeJS.Timeout>();
  let stopping = false;
  let exitCode = 0;
  let allExited = () => {};
  const exited = new Promise<void>((resolve) => {
    allExited = resolve;
  });

  const fork = (index: number, runsStartTasks: boolean): void => {
    const worker = cluster.fork({
      PORT: String(port),
      [RUNS_START_TASKS]: String(runsStartTasks),
      // Each process its own metrics port; 0 lets each take a free one.
      ...(metricsPort !== undefined && { METRICS_PORT: String(metricsPort && metricsPort + index) }),
    });
    indexOf.set(worker.id, index);
    worker.on("listening", (address: AddressInfo) => {
      if (address.port !== port) return;
      listened.add(worker.id);
      failedRestarts.delete(index);
      if (listened.size === config.apiProcesses) isStarting = false;
    });
  };

  const stopAll = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    for (const restart of restarts) clearTimeout(restart);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    if (indexOf.size === 0) allExited();
  };

  cluster.on("exit", (worker: Worker, code: number | null, signal: string | null) => {
    const index = indexOf.get(worker.id) ?? 0;
    indexOf.delete(worker.id);
    if (!stopping) {
      if (isStarting) {
        logger.error({ process: index, code, signal }, "an API process stopped while they were starting");
        exitCode = 1;
        stopAll("SIGTERM");
      } else {
        const failures = listened.has(worker.id) ? 0 : (failedRestarts.get(index) ?? 0) + 1;
        failedRestarts.set(index, failures);
        const delayMs = Math.min(RESTART_DELAY_MS * 2 ** failures, LONGEST_RESTART_DELAY_MS);
        logger.error({ process: index, code, signal, delayMs }, "an API process stopped: starting another");
        // Not unref'd: while every process is down, this keeps the supervisor running.
        const restart = setTimeout(() => {
          restarts.delete(restart);
          fork(index, false);
        }, delayMs);
        restarts.add(restart);
      }
    }
    listened.delete(worker.id);
    if (stopping && indexOf.size === 0) allExited();
  });
  process.once("SIGINT", stopAll);
  process.once("SIGTERM", stopAll);

  for (let index = 0; index < config.apiProcesses; index++) fork(index, index === 0);
  logger.info({ processes: config.apiProcesses, port }, "API processes started");
  await exited;
  await localRedis?.stop();
  process.exit(exitCode);
}
