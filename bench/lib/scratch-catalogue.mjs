// The benchmarks' scratch database: a catalogue of BENCH_ROWS images (1,000,000 by default), seeded once and
// reused by later runs, on the PostgreSQL of BENCH_DATABASE_URL. BENCH_VOCABULARY: "realistic" (default:
// titles of 8–14 words in English and French and 25–45 keywords over 60,000-word vocabularies, Zipf) or
// "demo" (the embedded demo's small vocabulary); each has its own database by default.
import { migrate, openDatabase, pgSession } from "@imagehub/db";
import pg from "pg";
import { seedCatalogue } from "../../apps/api/dist/catalogue/seed/catalogue-seeder.js";

export const BENCH_VOCABULARY = /** @type {"realistic" | "demo"} */ (
  process.env.BENCH_VOCABULARY === "demo" ? "demo" : "realistic"
);
export const BENCH_DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? `postgresql://postgres@127.0.0.1:5432/imagehub_bench_${BENCH_VOCABULARY}`;
export const BENCH_ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);

/**
 * Creates, migrates and seeds the scratch database as needed; answers how many catalogue rows it has, and the
 * seeding's rate (images written and indexed per second) when this run seeded.
 */
export async function prepareScratchCatalogue() {
  const url = new URL(BENCH_DATABASE_URL);
  const name = url.pathname.slice(1);
  const admin = new pg.Client({
    connectionString: Object.assign(new URL(url), { pathname: "/postgres" }).toString(),
  });
  await admin.connect();
  const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();

  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await client.connect();
  const migrating = performance.now();
  const applied = await migrate(pgSession(client));
  const { rows } = await client.query("SELECT count(*)::int AS count FROM images WHERE source = 'catalogue'");
  const existing = rows[0].count;
  if (applied.length > 0 && existing > 0) {
    // A migration that converts the catalogue in place leaves tables for index-only scans to read.
    await client.query("VACUUM ANALYZE");
    const seconds = ((performance.now() - migrating) / 1000).toFixed(0);
    process.stderr.write(`migrated ${existing} images (${applied.join(", ")}) in ${seconds} s\n`);
  }
  let buildRate;
  if (existing < BENCH_ROWS) {
    const database = await openDatabase({ url: BENCH_DATABASE_URL });
    const started = performance.now();
    // The same seed gives the same ids: rows already there are skipped, the rest added.
    await seedCatalogue(database.prisma, {
      count: BENCH_ROWS,
      seed: 1,
      vocabulary: BENCH_VOCABULARY,
      onBatch: (written) => process.stderr.write(`\rseeding: ${existing + written} / ${BENCH_ROWS}`),
    });
    const seconds = (performance.now() - started) / 1000;
    buildRate = (BENCH_ROWS - existing) / seconds;
    process.stderr.write(`\nseeded in ${seconds.toFixed(0)} s (${buildRate.toFixed(0)} images/s)\n`);
    await database.close();
    await client.query("VACUUM ANALYZE");
  }
  await client.end();
  return { rows: Math.max(existing, BENCH_ROWS), buildRate };
}
