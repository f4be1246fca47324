// The peer bench:search compares against: LanceDB's native full-text index (Rust, BM25) over the same titles
// and tags, answering the same request bodies behind a bare Fastify route, in a process of its own as the API
// is (so that the load generator does not share its event loop, and its CPU can be told apart). Its table is
// built once from the scratch catalogue (about a minute for 1,000,000 images) and reused while the
// catalogue's size is unchanged.
import { fork } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import * as lancedb from "@lancedb/lancedb";
import Fastify from "fastify";
import pg from "pg";

import { BENCH_VOCABULARY } from "./scratch-catalogue.mjs";

export const LANCEDB_DIRECTORY = `/tmp/imagehub-bench/lancedb-${BENCH_VOCABULARY}`;
const DIRECTORY = LANCEDB_DIRECTORY;
const TABLE = "images";
/** Title words weigh twice a tag, as in the API's ranking. */
const COLUMNS = ["title_en", "title_fr", "tags"];
const BOOSTS = [2, 2, 1];

/** @param {string} databaseUrl @param {number} rows */
async function openTable(databaseUrl, rows) {
  const connection = await lancedb.connect(DIRECTORY);
  if (existsSync(DIRECTORY) && (await connection.tableNames()).includes(TABLE)) {
    const table = await connection.openTable(TABLE);
    if ((await table.countRows()) === rows) return table;
  }
  await rm(DIRECTORY, { recursive: true, force: true });
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  /** @type {import("@lancedb/lancedb").Table | undefined} */
  let table;
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    const { rows: batch } = await client.query(
      `SELECT id::text, titles->>'en' AS title_en, titles->>'fr' AS title_fr, array_to_string(tags, ' ') AS tags,
              free, popularity, (extract(epoch FROM created_at) * 1000)::float8 AS created_at
       FROM images WHERE source = 'catalogue' AND id > $1 ORDER BY id LIMIT 50000`,
      [after],
    );
    if (batch.length === 0) break;
    after = batch[batch.length - 1].id;
    if (table) await table.add(batch);
    else table = await connection.createTable(TABLE, batch, { mode: "overwrite" });
    process.stderr.write(`\rLanceDB peer: ${await table.countRows()} / ${rows} images`);
  }
  await client.end();
  if (!table) throw new Error("the scratch catalogue is empty");
  const english = {
    stem: true,
    removeStopWords: true,
    asciiFolding: true,
    language: "English",
    withPosition: false,
  };
  await table.createIndex("title_en", { config: lancedb.Index.fts(english) });
  await table.createIndex("tags", { config: lancedb.Index.fts(english) });
  await table.createIndex("title_fr", {
    config: lancedb.Index.fts({ ...english, language: "French" }),
  });
  // One file instead of one per batch added: what a table that is not being written to would be.
  await table.optimize();
  process.stderr.write(`\nLanceDB peer built in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  return table;
}

/**
 * Serves `POST /search` with the API's request body. It does less than the API: keyword searches come back
 * in BM25 order whatever `sort` asks, no count of matches, no spelling correction (an unknown word finds
 * nothing); without keywords, the first images that pass the filter.
 * @param {string} databaseUrl @param {number} rows
 * @returns {Promise<string>} the URL of its route
 */
async function servePeer(databaseUrl, rows) {
  const table = await openTable(databaseUrl, rows);
  const app = Fastify();
  app.post("/search", async (request) => {
    const body = /** @type {{ search?: string, filterFree?: boolean, limit?: number, offset?: number }} */ (
      request.body
    );
    const query = body.search
      ? table.query().fullTextSearch(new lancedb.MultiMatchQuery(body.search, COLUMNS, { boosts: BOOSTS }))
      : table.query();
    if (body.filterFree) query.where("free = true");
    // Naming _score keeps LanceDB from warning, on every full-text search, that it adds it anyway.
    const found = await query
      .select(["id", "title_en", "title_fr", "free", ...(body.search ? ["_score"] : [])])
      .limit(body.limit ?? 20)
      .offset(body.offset ?? 0)
      .toArray();
    return {
      images: found.map((row) => ({
        id: row.id,
        titles: { en: row.title_en, fr: row.title_fr },
        free: row.free,
      })),
    };
  });
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  return `${address}/search`;
}

/**
 * Starts the peer's process (building its table first when needed).
 * @param {string} databaseUrl @param {number} rows
 * @returns {Promise<{ url: string, pid: number, close: () => Promise<void> }>}
 */
export async function startLanceDbPeer(databaseUrl, rows) {
  const child = fork(fileURLToPath(import.meta.url), [databaseUrl, String(rows)], { stdio: "inherit" });
  const [message] = /** @type {[{ url: string }]} */ (
    await Promise.race([
      once(child, "message"),
      once(child, "exit").then(([code]) => Promise.reject(new Error(`the LanceDB peer exited (${code})`))),
    ])
  );
  return {
    url: message.url,
    pid: /** @type {number} */ (child.pid),
    close: async () => {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [databaseUrl, rows] = process.argv.slice(2);
  process.send?.({ url: await servePeer(String(databaseUrl), Number(rows)) });
}
