import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { TEST_REDIS_URL, uniqueName } from "../../tests/support/environment.js";
import { freePort, start, stop, WITHOUT_LIMITS } from "../../tests/support/start-command.mjs";
import { createTestDatabase, type TestDatabase } from "../../tests/support/test-database.js";
import { until } from "../../tests/support/until.js";

const run = promisify(execFile);
const ADMIN_CLI = fileURLToPath(new URL("../../apps/api/dist/admin/admin.cli.js", import.meta.url));

type Started = ReturnType<typeof start>;

/**
 * imagehub as deployed: an API process and a worker process (apps/api/dist/main.js) on one PostgreSQL
 * database and one Redis prefix. The API alone can be stopped and started again on the same port and
 * database (an outage of the API); the worker keeps generating and delivering webhooks meanwhile.
 */
export class ImagehubProcesses {
  private api: Started | undefined;
  private worker: Started | undefined;
  /** Reads the database directly: it answers while the API is down. */
  private readonly pool: pg.Pool;

  private constructor(
    readonly database: TestDatabase,
    private readonly dataDir: string,
    private readonly port: number,
    private readonly env: Record<string, string>,
  ) {
    this.pool = new pg.Pool({ connectionString: database.url, max: 1 });
  }

  static async start(env: Record<string, string>): Promise<ImagehubProcesses> {
    const database = await createTestDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), "imagehub-soak-"));
    const processes = new ImagehubProcesses(database, dataDir, await freePort(), {
      ...WITHOUT_LIMITS,
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: uniqueName("soak"),
      // The API serves the images the worker draws: one folder, one link secret.
      DATA_DIR: dataDir,
      LINK_SECRET: uniqueName("link-secret-of-the-whole-deployment"),
      DEMO_ACCOUNT: "false",
      CATALOGUE_SEED_COUNT: "0",
      ...env,
    });
    processes.worker = await processes.startRole("worker", /"msg":"worker started"/);
    await processes.startApi();
    return processes;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async startApi(): Promise<void> {
    this.api = await this.startRole("api", /imagehub is running/);
  }

  async stopApi(): Promise<void> {
    if (this.api) await stop(this.api);
  }

  /** An account with credits for `generations` and one API key; answers the key. */
  async createAccount(email: string, generations: number): Promise<string> {
    await this.admin("account", "create", "--email", email, "--credits", `f_images_print=${generations}`);
    return (await this.admin("key", "create", "--email", email)).key as string;
  }

  /** The generations not ended yet. */
  async unfinishedGenerations(): Promise<number> {
    const { rows } = await this.pool.query<{ count: number }>(
      "SELECT count(*)::int AS count FROM generations WHERE status < 3",
    );
    return rows[0]?.count ?? 0;
  }

  async close(): Promise<void> {
    await this.stopApi();
    if (this.worker) await stop(this.worker);
    await this.pool.end();
    await this.database.drop();
    await rm(this.dataDir, { recursive: true, force: true });
  }

  private async startRole(role: "api" | "worker", ready: RegExp): Promise<Started> {
    const started = start({
      ...this.env,
      ROLE: role,
      PORT: String(this.port),
      // A worker says it has started at level info.
      ...(role === "worker" && { LOG_LEVEL: "info" }),
    });
    await until(
      () => {
        if (started.child.exitCode !== null) throw new Error(`imagehub ${role} exited:\n${started.output()}`);
        return ready.test(started.output());
      },
      { timeoutMs: 120_000, what: `imagehub ${role} to start` },
    );
    return started;
  }

  private async admin(...args: string[]): Promise<Record<string, unknown>> {
    const { stdout } = await run(process.execPath, [ADMIN_CLI, ...args, "--json"], {
      env: { PATH: process.env.PATH ?? "", DATABASE_URL: this.env.DATABASE_URL, LOG_LEVEL: "warn" },
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  }
}
