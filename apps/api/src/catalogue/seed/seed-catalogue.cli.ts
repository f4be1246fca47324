import { parseArgs } from "node:util";
import { openDatabase } from "@imagehub/db";
import { ConfigError, loadConfig } from "../../common/config.js";
import { seedCatalogue } from "./catalogue-seeder.js";

const USAGE = `Usage: npm run seed:catalogue -- --count N [--seed S] [--batch-size B] [--realistic]

Adds N catalogue images (titles in English and French, tags, some free) to the database the server uses
(DATABASE_URL, or the embedded one in DATA_DIR, which needs the server stopped). The same seed gives the
same images, so running it twice with the same seed adds nothing. Pixels are rendered on first display.
--realistic draws titles (8–14 words, English and French) and 25–45 keywords from real vocabularies of
60,000 words per language along a Zipf curve, as a stock catalogue reads; without it, the small demo
vocabulary.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: "string" },
      seed: { type: "string", default: "1" },
      "batch-size": { type: "string", default: "5000" },
      realistic: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  const count = Number(values.count);
  const seed = Number(values.seed);
  const batchSize = Number(values["batch-size"]);
  if (values.help || !Number.isInteger(count) || count < 1 || !Number.isInteger(seed) || !(batchSize >= 1)) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const database = await openDatabase(loadConfig(process.env).database);
  try {
    await database.migrate();
    const started = performance.now();
    const written = await seedCatalogue(database.prisma, {
      count,
      seed,
      batchSize,
      vocabulary: values.realistic ? "realistic" : "demo",
      onBatch: (rows) => {
        const perSecond = Math.round(rows / ((performance.now() - started) / 1000));
        process.stderr.write(`\r${rows} / ${count} images (${perSecond}/s)`);
      },
      onIndexing: () => process.stderr.write("\nindexing for search"),
    });
    // Fresh statistics for the planner (the sorted walks of many matches), and the visibility map.
    if (database.kind === "postgresql")
      await database.prisma.$executeRawUnsafe(
        "VACUUM ANALYZE images, search_documents, search_blocks, search_terms",
      );
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stderr.write("\n");
    process.stdout.write(`${written} images added (${count - written} already there) in ${seconds} s\n`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof ConfigError ? "" : "seed failed: "}${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
