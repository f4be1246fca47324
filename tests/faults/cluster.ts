import { type ChildProcess, execFile } from "node:child_process";
import { once } from "node:events";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { killRedisServer, startRedisServer } from "../support/redis-server.js";
import { freePort, start, stop } from "../support/start-command.mjs";
import { until } from "../support/until.js";

const run = promisify(execFile);
const PG_BIN = process.env.FAULTS_PG_BIN ?? "/usr/lib/postgresql/15/bin";
const ADMIN_CLI = fileURLToPath(new URL("../../apps/api/dist/admin/admin.cli.js", import.meta.url));
/** PostgreSQL refuses to run as root: its commands then run as the postgres user. */
const AS_POSTGRES = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];

function postgresCommand(command: string, args: string[]) {
  const [program, ...rest] = [...AS_POSTGRES, join(PG_BIN, command), ...args] as [string, ...string[]];
  return run(program, rest);
}

type Started = ReturnType<typeof start>;
export type Role = "api" | "worker";

/**
 * imagehub as in production, on servers of its own: PostgreSQL (initdb, pg_ctl) and Redis on free ports,
 * 2 API and 2 worker processes (apps/api/dist/main.js), each of which can be killed, stopped and started.
 */
export class Cluster {
  readonly processes = new Map<string, { role: Role; port: number; started: Started }>();
  private redis: ChildProcess | undefined;
  private constructor(
    private readonly dir: string,
    readonly pgPort: number,
    readonly redisPort: number,
    private readonly env: Record<string, string>,
  ) {}

  get databaseUrl(): string {
    return `postgresql://postgres@127.0.0.1:${this.pgPort}/postgres`;
  }

  static async create(env: Record<string, string>): Promise<Cluster> {
    const dir = await mkdtemp(join(tmpdir(), "imagehub-faults-"));
    if (AS_POSTGRES.length > 0) await chown(dir, Number((await run("id", ["-u", "postgres"])).stdout), 0);
    const cluster = new Cluster(dir, await freePort(), await freePort(), env);
    await postgresCommand("initdb", ["-D", join(dir, "pg"), "-U", "postgres", "--auth=trust", "-N"]);
    await cluster.startPostgres();
    await cluster.startRedis();
    return cluster;
  }

  async startPostgres(): Promise<void> {
    const options = `-p ${this.pgPort} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    await postgresCommand("pg_ctl", [
      "-D",
      join(this.dir, "pg"),
      "-o",
      options,
      "-l",
      join(this.dir, "pg.log"),
      "-w",
      "start",
    ]);
  }

  async stopPostgres(): Promise<void> {
    await postgresCommand("pg_ctl", ["-D", join(this.dir, "pg"), "-m", "fast", "-w", "stop"]);
  }

  async startRedis(): Promise<void> {
    this.redis = await startRedisServer(this.redisPort);
  }

  /** Killed: its data goes with it. */
  async killRedis(): Promise<void> {
    if (this.redis) await killRedisServer(this.redis);
  }

  /** Starts an API or worker process; answers once it serves (API) or has started (worker). */
  async startProcess(name: string, role: Role, port?: number): Promise<void> {
    const chosenPort = port ?? this.processes.get(name)?.port ?? (await freePort());
    const started = start({
      ...this.env,
      ROLE: role,
      PORT: String(chosenPort),
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: `redis://127.0.0.1:${this.redisPort}`,
      DATA_DIR: join(this.dir, "data"),
      // A worker says it has started at level info.
      ...(role === "worker" && { LOG_LEVEL: "info" }),
    });
    this.processes.set(name, { role, port: chosenPort, started });
    const ready = role === "api" ? /imagehub is running/ : /worker started/;
    await until(
      () => {
        if (started.child.exitCode !== null) throw new Error(`${name} exited:\n${started.output()}`);
        return ready.test(started.output());
      },
      { timeoutMs: 120_000, what: `${name} to start` },
    );
  }

  baseUrl(name: string): string {
    return `http://127.0.0.1:${this.processes.get(name)?.port}`;
  }

  apiNames(): string[] {
    return [...this.processes].filter(([, entry]) => entry.role === "api").map(([name]) => name);
  }

  async kill(name: string): Promise<void> {
    const child = this.processes.get(name)?.started.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGKILL");
    await once(child, "exit");
  }

  /** SIGTERM; answers the exit code. */
  async terminate(name: string): Promise<number | null> {
    const entry = this.processes.get(name);
    return entry ? stop(entry.started) : null;
  }

  async admin(...args: string[]): Promise<Record<string, string>> {
    const { stdout } = await run(process.execPath, [ADMIN_CLI, ...args, "--json"], {
      env: { PATH: process.env.PATH ?? "", DATABASE_URL: this.databaseUrl, LOG_LEVEL: "warn" },
    });
    return JSON.parse(stdout) as Record<string, string>;
  }

  async close(): Promise<void> {
    await Promise.all([...this.processes.keys()].map((name) => this.kill(name)));
    await this.killRedis();
    await this.stopPostgres().catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }
}
