// bench:import: `catalogue import` (the admin CLI, as an operator runs it) into an empty catalogue, beside the
// seed writing as many images through its own bulk path in the same run (the peer), with `uptime`'s load
// average at each step (the machine may be shared). Steps: a text-only manifest of BENCH_ROWS lines
// (100,000) loaded with --no-images, then loaded again (nothing changes: the idempotent pass a resumed import
// makes); the seed of BENCH_ROWS images into another empty catalogue; the first load again with no search
// index kept (the import's own cost, a ceiling); then BENCH_PICTURE_ROWS lines (2,000)
// with pictures: BENCH_PICTURE_FILES (200) distinct photographs-like files (noise, JPEG and PNG, 1,536 px on
// their long edge), each line naming one. BENCH_VOCABULARY: "realistic" (default: titles of 8–14 words in
// English and French, 25–45 keywords, over real vocabularies of 60,000 words each, as bench:search uses) or
// "demo" (the embedded demo's small vocabulary); the seed step draws from the same one.
// Run through `npm run bench:import` (it builds first); BENCH_IMPORT_DATABASE_URL names the scratch database
// (dropped and created at each step).
import { execFile } from "node:child_process";
import { appendFile, mkdir, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import sharp from "sharp";
import { generateRealisticEntry } from "../apps/api/dist/catalogue/seed/realistic-vocabulary.js";
import { generateEntry } from "../apps/api/dist/catalogue/seed/title-generator.js";
import { createRandom } from "../apps/api/dist/common/seeded-random.js";
import { freshDatabase } from "./lib/fresh-database.mjs";

const DATABASE_URL =
  process.env.BENCH_IMPORT_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/import_bench";
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const PICTURE_ROWS = Number(process.env.BENCH_PICTURE_ROWS ?? 2_000);
const PICTURE_FILES = Number(process.env.BENCH_PICTURE_FILES ?? 200);
const VOCABULARY = process.env.BENCH_VOCABULARY ?? "realistic";
if (VOCABULARY !== "realistic" && VOCABULARY !== "demo")
  throw new Error(`BENCH_VOCABULARY is "realistic" or "demo", not ${JSON.stringify(VOCABULARY)}`);
const entryOf = VOCABULARY === "realistic" ? generateRealisticEntry : generateEntry;
const ADMIN_CLI = new URL("../apps/api/dist/admin/admin.cli.js", import.meta.url).pathname;
const MIGRATE_CLI = new URL("../packages/db/dist/migrate.cli.js", import.meta.url).pathname;
const SEED_CLI = new URL("../apps/api/dist/catalogue/seed/seed-catalogue.cli.js", import.meta.url).pathname;

const work = join(tmpdir(), `import-bench-${process.pid}`);
const storage = join(work, "storage");
const pictures = join(work, "pictures");
const environment = { PATH: process.env.PATH ?? "", DATABASE_URL, STORAGE_DIR: storage };

const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(", ");

/** Runs a CLI to its end; answers its wall time and stdout. @param {string} script @param {string[]} args */
async function timed(script, args) {
  const started = performance.now();
  const { stdout } = await promisify(execFile)(process.execPath, [script, ...args], {
    env: environment,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error) => {
    throw new Error(`${script} ${args.join(" ")} failed: ${error.stderr ?? error.message}`);
  });
  return { seconds: (performance.now() - started) / 1000, stdout };
}

/** A photograph-like picture: noise compresses as badly as detail does. @param {number} index */
function photograph(index) {
  const landscape = index % 3 !== 0;
  const [width, height] = landscape ? [1536, 1024] : [1024, 1536];
  const picture = sharp({
    create: {
      width,
      height,
      channels: 3,
      background: { r: 90, g: 120, b: 160 },
      noise: { type: "gaussian", mean: 120, sigma: 40 },
    },
  }).blur(1.2);
  return index % 4 === 0 ? picture.png().toBuffer() : picture.jpeg({ quality: 88 }).toBuffer();
}

/** @param {() => number} random @param {number} index @param {string} [file] */
function manifestLine(random, index, file) {
  const { titles, tags } = entryOf(random);
  return JSON.stringify({
    externalId: `bench-${index}`,
    titles,
    tags,
    free: random() < 0.1,
    price: 1 + Math.floor(random() * 3),
    ...(file && { file }),
  });
}

/**
 * Writes `count` manifest lines, 10,000 at a time: a million realistic lines (about 740 MB) are more than one
 * string can hold. @param {string} path @param {number} count @param {(index: number) => string} lineOf
 */
async function writeManifest(path, count, lineOf) {
  await writeFile(path, "");
  for (let start = 0; start < count; start += 10_000) {
    const end = Math.min(count, start + 10_000);
    await appendFile(
      path,
      `${Array.from({ length: end - start }, (_, offset) => lineOf(start + offset)).join("\n")}\n`,
    );
  }
}

/** @type {{ step: string, lines: number, seconds: string, rate: number, load: string }[]} */
const results = [];
/** @param {string} step @param {number} lines @param {number} seconds @param {string} loadBefore */
function record(step, lines, seconds, loadBefore) {
  const rate = Math.round(lines / seconds);
  results.push({ step, lines, seconds: seconds.toFixed(1), rate, load: `${loadBefore} → ${load()}` });
  process.stderr.write(`${step}: ${lines} in ${seconds.toFixed(1)} s (${rate}/s)\n`);
}

await rm(work, { recursive: true, force: true });
await mkdir(pictures, { recursive: true });
try {
  const random = createRandom(7);
  const text = join(work, "text.jsonl");
  await writeManifest(text, ROWS, (index) => manifestLine(random, index));

  await freshDatabase(DATABASE_URL);
  // Migrating the empty database is not the import's time.
  await timed(MIGRATE_CLI, []);
  let before = load();
  let run = await timed(ADMIN_CLI, ["catalogue", "import", "--manifest", text, "--no-images", "--json"]);
  record("import --no-images, empty catalogue", ROWS, run.seconds, before);
  before = load();
  run = await timed(ADMIN_CLI, ["catalogue", "import", "--manifest", text, "--no-images", "--json"]);
  if (JSON.parse(run.stdout).unchanged !== ROWS)
    throw new Error(`the second run changed images: ${run.stdout}`);
  record("the same again (nothing changes)", ROWS, run.seconds, before);

  await freshDatabase(DATABASE_URL);
  await timed(MIGRATE_CLI, []);
  before = load();
  run = await timed(SEED_CLI, [
    "--count",
    String(ROWS),
    "--seed",
    "7",
    ...(VOCABULARY === "realistic" ? ["--realistic"] : []),
  ]);
  record("peer: seed:catalogue, empty catalogue", ROWS, run.seconds, before);

  // A ceiling: the same load with the catalogue's user triggers off, so that no search index is kept. What
  // the import itself costs (reading, checking, comparing, writing rows), whatever search index is in place.
  await freshDatabase(DATABASE_URL);
  await timed(MIGRATE_CLI, []);
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query("ALTER TABLE images DISABLE TRIGGER USER");
  await client.end();
  before = load();
  run = await timed(ADMIN_CLI, ["catalogue", "import", "--manifest", text, "--no-images", "--json"]);
  record("ceiling: import --no-images, no search index kept", ROWS, run.seconds, before);

  for (let index = 0; index < PICTURE_FILES; index++) {
    await writeFile(
      join(pictures, `photo-${index}.${index % 4 === 0 ? "png" : "jpg"}`),
      await photograph(index),
    );
  }
  const withPictures = join(work, "pictures.jsonl");
  await writeManifest(withPictures, PICTURE_ROWS, (index) =>
    manifestLine(
      random,
      index,
      `photo-${index % PICTURE_FILES}.${(index % PICTURE_FILES) % 4 === 0 ? "png" : "jpg"}`,
    ),
  );
  const importWithPictures = () =>
    timed(ADMIN_CLI, ["catalogue", "import", "--manifest", withPictures, "--images", pictures, "--json"]);
  await freshDatabase(DATABASE_URL);
  await timed(MIGRATE_CLI, []);
  before = load();
  run = await importWithPictures();
  record("import with pictures (a quarter PNG), empty catalogue", PICTURE_ROWS, run.seconds, before);
  before = load();
  run = await importWithPictures();
  record("the same again (files hashed, nothing changes)", PICTURE_ROWS, run.seconds, before);

  process.stdout.write("| step | lines | time | lines/s | load average (1, 5, 15 min) before → after |\n");
  process.stdout.write("| --- | ---: | ---: | ---: | --- |\n");
  for (const result of results) {
    process.stdout.write(
      `| ${result.step} | ${result.lines.toLocaleString("en")} | ${result.seconds} s | ${result.rate.toLocaleString("en")} | ${result.load} |\n`,
    );
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
