// An empty database for a benchmark run, on the PostgreSQL of its URL (dropped first if it exists).
import pg from "pg";

/** @param {string} databaseUrl */
export async function freshDatabase(databaseUrl) {
  const url = new URL(databaseUrl);
  const admin = new pg.Client({
    connectionString: Object.assign(new URL(url), { pathname: "/postgres" }).toString(),
  });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${url.pathname.slice(1)}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${url.pathname.slice(1)}"`);
  await admin.end();
}
