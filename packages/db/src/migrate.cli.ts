// `npm run db:migrate`: applies pending migrations to DATABASE_URL before a deploy starts new processes
// (each process also migrates at start, under the same lock, so running this first is optional).
import pg from "pg";
import { migrate } from "./migrator.js";
import { pgSession } from "./sql-session.js";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("DATABASE_URL is not set: it names the PostgreSQL database to migrate.");
  process.exit(2);
}
const client = new pg.Client({ connectionString: url });
try {
  await client.connect();
  const applied = await migrate(pgSession(client));
  console.log(applied.length ? `applied ${applied.join(", ")}` : "the database is up to date");
} catch (error) {
  console.error(`migration failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await client.end();
}
