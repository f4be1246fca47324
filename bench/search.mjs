// bench:search: the running API searching a 1,000,000-image catalogue under 50 connections with a realistic
// mix (at least 2,000 distinct searches drawn along a Zipf curve, see lib/search-queries.mjs), three runs
// side by side: the API as shipped, the API with its answer cache off, and LanceDB's full-text index behind a
// bare Fastify route (the peer). Then one case at a time, uncached, beside what PostgreSQL itself does with
// the very SQL the app sent (pgbench, same concurrency).
// Run through `npm run bench:search` (it builds first). BENCH_ROWS, BENCH_DURATION_S (per mix run, 20),
// BENCH_CASE_DURATION_S (per case, 5), BENCH_CONNECTIONS, BENCH_DATABASE_URL and BENCH_QUERIES (distinct
// searches, 2,400) adjust it; BENCH_PARTS ("mix", "cases" or both, comma-separated) and BENCH_CASES (words
// of case names, e.g. "rare,filterFree") choose what runs; BENCH_PARTS=cpu sends BENCH_DRAWS
// (1,500) draws of the mix one at a time to the API with its cache off and reports the CPU PostgreSQL and the
// API spend per search, by kind of search (CPU time, unlike latency, holds on a shared machine);
// BENCH_PARTS=build writes the search index again from the catalogue's rows (rolled back after), in a seed's
// and in an import's batches, with its rate and PostgreSQL's CPU per image;
// BENCH_PARTS=searches sends each distinct search of those draws a few times and lists the
// BENCH_SEARCHES_SHOWN (25) that cost PostgreSQL the most CPU in all (draws × CPU per search), then the API.
// BENCH_MIX_RUNS ("shipped", "uncached", "peer", comma-separated; all three by default) picks the mix's runs;
// BENCH_API_ENV (JSON, e.g. {"DATABASE_POOL_SIZE":"10"}) gives every API the bench starts more settings;
// BENCH_PURCHASES_PER_S and BENCH_CATALOGUE_CHANGES_PER_S (0 by default) write to the catalogue during the mix's
// runs, as a live catalogue is written to while it is searched.
import { execFileSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import pg from "pg";
import { stop } from "../tests/support/start-command.mjs";
import { startApi } from "./lib/api.mjs";
import { startCatalogueWrites } from "./lib/catalogue-writes.mjs";
import { LANCEDB_DIRECTORY, startLanceDbPeer } from "./lib/lancedb-peer.mjs";
/** @typedef {import("./lib/api.mjs").RunningApi} RunningApi */
import { CONNECTIONS, httpLoad, httpMixLoad, inlineParameters, pgbenchLoad } from "./lib/load.mjs";
import { measureCpu } from "./lib/process-cpu.mjs";
import { BENCH_DATABASE_URL, BENCH_VOCABULARY, prepareScratchCatalogue } from "./lib/scratch-catalogue.mjs";
import { buildSearchMix, zipfDraw } from "./lib/search-queries.mjs";

const MIX_DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const CASE_DURATION_S = Number(process.env.BENCH_CASE_DURATION_S ?? 5);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 2400);
const PARTS = (process.env.BENCH_PARTS ?? "storage,mix,cases").split(",").map((part) => part.trim());
/** The scratch catalogue's database, whose backends' CPU is PostgreSQL's share. */
const BENCH_DATABASE = new URL(BENCH_DATABASE_URL).pathname.slice(1);
/** Writes to the catalogue during each mix run (see lib/catalogue-writes.mjs), per second. */
const WRITES = {
  purchasesPerS: Number(process.env.BENCH_PURCHASES_PER_S ?? 0),
  catalogueChangesPerS: Number(process.env.BENCH_CATALOGUE_CHANGES_PER_S ?? 0),
};
/** BENCH_PARTS=build: the index written as a seed's flush does and as an import's batches do. */
const BUILD_RUNS = [
  { name: "a seed's flush", batch: 20_000, workMem: "64MB" },
  { name: "an import", batch: 2_000, workMem: undefined },
];
/** BENCH_PARTS=searches: each distinct search is sent this many times, and the searches costing most shown. */
const SEARCH_REPEATS = 3;
const SEARCHES_SHOWN = Number(process.env.BENCH_SEARCHES_SHOWN ?? 25);
const MIX_RUNS = (process.env.BENCH_MIX_RUNS ?? "shipped,uncached,peer").split(",").map((run) => run.trim());

const ALL_CASES = [
  { name: "common word (~10 %)", body: { search: "sunset" } },
  { name: "two words", body: { search: "fox forest" } },
  { name: "three words, French", body: { search: "renard forêt enneigée" } },
  { name: "rare word", body: { search: "axolotl" } },
  { name: "misspelled word", body: { search: "elefant" } },
  { name: "word, filterFree", body: { search: "forest", filterFree: true } },
  { name: "no keyword, filterFree", body: { filterFree: true } },
  { name: "sort relevance", body: { search: "forest", sort: "relevance" } },
  { name: "sort newest", body: { search: "forest", sort: "newest" } },
  { name: "sort oldest", body: { search: "forest", sort: "oldest" } },
  { name: "sort popular", body: { search: "forest", sort: "popular" } },
  { name: "word, offset 10,000", body: { search: "forest", offset: 10_000 } },
  { name: "deep offset (10,000)", body: { offset: 10_000 } },
];
const chosen = process.env.BENCH_CASES?.split(",").map((word) => word.trim().toLowerCase());
const CASES = chosen
  ? ALL_CASES.filter((testCase) => chosen.some((word) => testCase.name.toLowerCase().includes(word)))
  : ALL_CASES;

/** @param {RunningApi} api */
const searchTarget = (api) => ({ url: `${api.base}/v1/images/search`, headers: { "api-key": api.key } });

/**
 * The statements one search sends, read from the trace log around a single request made after the same
 * search once, so that what a process reads once (its sort keys, say) is not counted as the search's.
 * @param {RunningApi} api @param {Record<string, unknown>} body
 */
async function statementsOf(api, body) {
  const target = searchTarget(api);
  const send = async () => {
    const response = await fetch(target.url, {
      method: "POST",
      headers: { ...target.headers, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return /** @type {{ filteredResults: number }} */ (await response.json());
  };
  await send();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const before = api.started.output().length;
  const answer = await send();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const statements = api.started
    .output()
    .slice(before)
    .split("\n")
    .filter((line) => line.includes('"msg":"sql"'))
    .map((line) => JSON.parse(line))
    // The key lookup and its lastUsedAt write happen on every route; the search is what is measured.
    .filter((entry) => !/api_keys/.test(entry.sql))
    .map((entry) => inlineParameters(entry.sql, entry.params));
  return { statements, filteredResults: answer.filteredResults };
}

/** @param {number} value */
const format = (value) => (Number.isFinite(value) ? value.toFixed(1) : "-");
/** @param {{ p50: number, p95?: number, p99: number, rate: number, errors: number }} run */
const figures = (run) =>
  `${format(run.p50)} | ${run.p95 === undefined ? "" : `${format(run.p95)} | `}${format(run.p99)} | ` +
  `${run.rate.toFixed(0)}${run.errors ? ` (${run.errors} errors)` : ""}`;

const { rows, buildRate } = await prepareScratchCatalogue();
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model}, node ${process.version}; ${rows} catalogue rows ` +
    `(${BENCH_VOCABULARY} vocabulary)${buildRate ? `, seeded and indexed at ${buildRate.toFixed(0)} images/s` : ""}; ` +
    `load average at start ${loadavg()
      .map((load) => load.toFixed(2))
      .join(", ")}`,
);

/** A mix run against the API started with `env`. @param {Record<string, string>} env */
const apiRun = (env) => async () => {
  const api = await startApi("warn", env);
  return { target: searchTarget(api), pid: Number(api.started.child.pid), close: () => stop(api.started) };
};

/** The mix's runs: each is started just before it runs and stopped after. */
const MIX_RUN_KINDS = {
  shipped: { name: "API as shipped", start: apiRun({}) },
  uncached: { name: "API, answer cache off", start: apiRun({ SEARCH_CACHE_SECONDS: "0" }) },
  peer: {
    name: "LanceDB peer (FTS, BM25)",
    start: async () => {
      const peer = await startLanceDbPeer(BENCH_DATABASE_URL, rows);
      return { target: { url: peer.url }, pid: peer.pid, close: () => peer.close() };
    },
  },
};

if (PARTS.includes("storage")) {
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await client.connect();
  const { rows: sizes } = await client.query(`
    SELECT relname AS name, pg_total_relation_size(oid)::float8 AS bytes FROM pg_class
    WHERE relname IN ('search_blocks', 'search_documents', 'search_terms', 'search_words', 'search_index_pending')
    UNION ALL
    SELECT 'images.search_document (column)', sum(pg_column_size(search_document))::float8 FROM images
    UNION ALL
    SELECT 'images.titles and images.tags (the text indexed)', sum(pg_column_size(titles) + pg_column_size(tags))::float8 FROM images`);
  await client.end();
  // The peer's folder is built on its first start.
  await (await startLanceDbPeer(BENCH_DATABASE_URL, rows)).close();
  const lance = Number(execFileSync("du", ["-sb", LANCEDB_DIRECTORY]).toString().split("\t")[0]);
  console.log("\nstorage\n\n| structure | MB |\n|---|---|");
  for (const { name, bytes } of sizes) console.log(`| ${name} | ${(bytes / 1e6).toFixed(1)} |`);
  console.log(`| LanceDB peer's folder (data and FTS indexes) | ${(lance / 1e6).toFixed(1)} |`);
}

if (PARTS.includes("build")) {
  // The index written again over the catalogue's rows, in a transaction rolled back after (the catalogue stays
  // as it was): as a seed's flush writes it, 20,000 images a statement, and as an import's batches do.
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  const builder = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await Promise.all([client.connect(), builder.connect()]);
  const { rows: ids } = await builder.query(
    "SELECT id FROM images WHERE source = 'catalogue' ORDER BY created_at, id",
  );
  console.log(`\nbuild: the search index of ${ids.length} images written again from their rows\n`);
  console.log("| as | images a statement | s | images/s | PostgreSQL CPU, s | CPU per image, ms |");
  console.log("|---|---|---|---|---|---|");
  for (const { name, batch, workMem } of BUILD_RUNS) {
    await builder.query("BEGIN");
    // search_index_flush sets this much for its sorts; an import's statements run with the server's default.
    if (workMem) await builder.query(`SET LOCAL work_mem = '${workMem}'`);
    await builder.query("TRUNCATE search_blocks, search_documents");
    await builder.query("UPDATE search_terms SET documents = 0, free_documents = 0");
    const started = performance.now();
    const cpu = await measureCpu(client, BENCH_DATABASE, {}, async () => {
      for (let at = 0; at < ids.length; at += batch) {
        await builder.query("SELECT search_index_add($1::uuid[])", [
          ids.slice(at, at + batch).map((row) => row.id),
        ]);
      }
    });
    const seconds = (performance.now() - started) / 1000;
    await builder.query("ROLLBACK");
    console.log(
      `| ${name} | ${batch} | ${seconds.toFixed(1)} | ${(ids.length / seconds).toFixed(0)} | ` +
        `${(cpu.postgres / 1000).toFixed(1)} | ${(cpu.postgres / ids.length).toFixed(3)} |`,
    );
  }
  await Promise.all([client.end(), builder.end()]);
}

if (PARTS.includes("mix")) {
  const mix = buildSearchMix(QUERIES, BENCH_VOCABULARY);
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await client.connect();
  const results = [];
  for (const kind of MIX_RUNS) {
    const run = MIX_RUN_KINDS[/** @type {keyof typeof MIX_RUN_KINDS} */ (kind)];
    if (!run) throw new Error(`BENCH_MIX_RUNS: no run named ${kind}`);
    const { target, pid, close } = await run.start();
    // Every run draws the same sequence of searches.
    const draw = zipfDraw(mix.length);
    const nextBody = () => mix[draw()];
    const writes = await startCatalogueWrites(BENCH_DATABASE_URL, WRITES);
    await httpMixLoad(target, nextBody, { durationS: 5 }); // warm caches and connections
    /** @type {Awaited<ReturnType<typeof httpMixLoad>> | undefined} */
    let result;
    const cpu = await measureCpu(client, BENCH_DATABASE, { server: pid }, async () => {
      result = await httpMixLoad(target, nextBody, { durationS: MIX_DURATION_S });
    });
    await writes.stop();
    results.push({ kind, name: run.name, result: /** @type {NonNullable<typeof result>} */ (result), cpu });
    await close();
  }
  await client.end();
  const peerRate = results.find((run) => run.kind === "peer")?.result.rate ?? Number.NaN;
  console.log(
    `\nmix: ${mix.length} distinct searches drawn along a Zipf curve (s = 1), ${CONNECTIONS} connections, ` +
      `${MIX_DURATION_S} s per run after 5 s of warm-up; ${WRITES.purchasesPerS} purchases/s and ` +
      `${WRITES.catalogueChangesPerS} catalogue changes/s meanwhile\n`,
  );
  console.log("| run | p50 ms | p95 ms | p99 ms | req/s | ÷ peer |");
  console.log("|---|---|---|---|---|---|");
  for (const { name, result } of results) {
    console.log(
      `| ${name} | ${figures(result)} | ${Number.isFinite(peerRate) ? (result.rate / peerRate).toFixed(2) : "-"} |`,
    );
  }
  // With every connection always waiting for an answer, the mean latency is connections ÷ rate (Little's
  // law): the CPU each search costs, on a busy machine, is what sets the latencies.
  console.log(
    `\nwhere the CPU went, per search (ms), and the mean latency ${CONNECTIONS} busy connections imply\n`,
  );
  console.log("| run | server | PostgreSQL | load generator | in all | machine busy | connections ÷ req/s |");
  console.log("|---|---|---|---|---|---|---|");
  for (const { name, result, cpu } of results) {
    const searches = result.rate * MIX_DURATION_S;
    const per = (/** @type {number} */ ms) => (ms / searches).toFixed(2);
    console.log(
      `| ${name} | ${per(cpu.servers.server)} | ${per(cpu.postgres)} | ${per(cpu.loadGenerator)} | ` +
        `${per(cpu.servers.server + cpu.postgres + cpu.loadGenerator)} | ${(100 * cpu.machineBusy).toFixed(0)} % | ` +
        `${((1000 * CONNECTIONS) / result.rate).toFixed(1)} ms |`,
    );
  }
}

if (PARTS.includes("cases")) {
  const tracing = await startApi("trace", { SEARCH_CACHE_SECONDS: "0" });
  // A sorted search answers once the sort keys the API reads as it starts are in: that read, seconds long
  // on a million images, is then not logged inside a case's trace.
  await statementsOf(tracing, { search: "forest", sort: "newest" });
  const sqlByCase = [];
  for (const testCase of CASES) sqlByCase.push(await statementsOf(tracing, testCase.body));
  await stop(tracing.started);
  const uncached = await startApi("warn", { SEARCH_CACHE_SECONDS: "0" });
  console.log(
    `\ncases: one search repeated, answer cache off, ${CONNECTIONS} connections, ${CASE_DURATION_S} s each; ` +
      "pg = pgbench replaying the app's statements\n",
  );
  console.log("| case | matches | p50 ms | p99 ms | req/s | pg p50 ms | pg p99 ms | pg tx/s | app/pg |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const [index, testCase] of CASES.entries()) {
    const target = searchTarget(uncached);
    const headers = { ...target.headers, "content-type": "application/json" };
    const request = { url: target.url, headers, method: "POST", body: JSON.stringify(testCase.body) };
    await httpLoad(request, { durationS: 1 }); // warm connections
    const app = await httpLoad(request, { durationS: CASE_DURATION_S });
    const { statements, filteredResults } = /** @type {(typeof sqlByCase)[number]} */ (sqlByCase[index]);
    const ceiling = await pgbenchLoad(BENCH_DATABASE_URL, statements, { durationS: CASE_DURATION_S });
    console.log(
      `| ${testCase.name} | ${filteredResults} | ${figures(app)} | ${figures(ceiling)} | ` +
        `${((100 * app.rate) / ceiling.rate).toFixed(0)} % |`,
    );
  }
  await stop(uncached.started);
}

/**
 * An API with its answer cache off, a connection to its database, a way to send it one search and the
 * mix's first BENCH_DRAWS draws (after 200 sent to warm its connections and caches).
 * @param {Record<string, string>} env more configuration of the API
 */
async function searchOneAtATime(env) {
  const api = await startApi("warn", { SEARCH_CACHE_SECONDS: "0", ...env });
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await client.connect();
  const target = searchTarget(api);
  const send = async (/** @type {Record<string, unknown>} */ body) => {
    const response = await fetch(target.url, {
      method: "POST",
      headers: { ...target.headers, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    await response.json();
  };
  const mix = buildSearchMix(QUERIES, BENCH_VOCABULARY);
  const draw = zipfDraw(mix.length);
  const draws = Array.from({ length: Number(process.env.BENCH_DRAWS ?? 1500) }, () => mix[draw()] ?? {});
  for (const body of draws.slice(0, 200)) await send(body);
  /** CPU used while `work` runs (see measureCpu), by PostgreSQL and by the API. @param {() => Promise<void>} work */
  const measure = (work) => measureCpu(client, BENCH_DATABASE, { api: Number(api.started.child.pid) }, work);
  const close = async () => {
    await client.end();
    await stop(api.started);
  };
  return { send, draws, measure, close };
}

if (PARTS.includes("cpu")) {
  const { send, draws, measure, close } = await searchOneAtATime({});
  /** @param {import("./lib/search-queries.mjs").SearchBody} body */
  const kindOf = (body) => {
    const words = body.search?.split(" ").length ?? 0;
    const ranked = words > 1 && (body.sort ?? "relevance") === "relevance";
    return `${words} word${words === 1 ? "" : "s"}${ranked ? ", relevance" : ""}${(body.offset ?? 0) > 200 ? ", deep page" : ""}`;
  };
  /** @type {Map<string, typeof draws>} */
  const kinds = new Map();
  for (const body of draws) kinds.set(kindOf(body), [...(kinds.get(kindOf(body)) ?? []), body]);
  const rowsOut = [];
  for (const [kind, bodies] of kinds) {
    const used = await measure(async () => {
      for (const body of bodies) await send(body);
    });
    rowsOut.push({ kind, searches: bodies.length, postgres: used.postgres, api: used.servers.api });
  }
  await close();
  const total = rowsOut.reduce((sum, row) => sum + row.postgres, 0);
  const apiTotal = rowsOut.reduce((sum, row) => sum + row.api, 0);
  console.log(
    `\nCPU per search, answer cache off, ${draws.length} draws of the mix one at a time: PostgreSQL ` +
      `${(total / draws.length).toFixed(2)} ms, API ${(apiTotal / draws.length).toFixed(2)} ms\n`,
  );
  console.log("| kind | searches | PostgreSQL ms/search | share of PostgreSQL | API ms/search |");
  console.log("|---|---|---|---|---|");
  for (const row of rowsOut.sort((a, b) => b.postgres - a.postgres)) {
    console.log(
      `| ${row.kind} | ${row.searches} | ${(row.postgres / row.searches).toFixed(2)} | ` +
        `${((100 * row.postgres) / total).toFixed(1)} % | ${(row.api / row.searches).toFixed(2)} |`,
    );
  }
}

if (PARTS.includes("searches")) {
  // One pooled connection: its backend's CPU is the search's.
  const { send, draws, measure, close } = await searchOneAtATime({ DATABASE_POOL_SIZE: "1" });
  /** @type {Map<string, number>} */
  const drawn = new Map();
  for (const body of draws) drawn.set(JSON.stringify(body), (drawn.get(JSON.stringify(body)) ?? 0) + 1);
  const searches = [];
  for (const [body, times] of drawn) {
    const search = JSON.parse(body);
    await send(search); // its words' lookup is kept a few seconds, as between the mix's repeats
    const used = await measure(async () => {
      for (let repeat = 0; repeat < SEARCH_REPEATS; repeat++) await send(search);
    });
    searches.push({
      body,
      times,
      postgres: used.postgres / SEARCH_REPEATS,
      api: used.servers.api / SEARCH_REPEATS,
    });
  }
  await close();
  for (const spender of /** @type {const} */ (["postgres", "api"])) {
    const who = spender === "api" ? "the API" : "PostgreSQL";
    const total = searches.reduce((sum, search) => sum + search.times * search[spender], 0);
    console.log(
      `\nCPU of ${who} per distinct search of ${draws.length} draws of the mix (answer cache off, mean of ` +
        `${SEARCH_REPEATS}): ${(total / draws.length).toFixed(2)} ms per draw; the ${SEARCHES_SHOWN} costing most in all\n`,
    );
    console.log(`| search | draws | ${who} ms | share | cumulative |`);
    console.log("|---|---|---|---|---|");
    let cumulative = 0;
    for (const search of searches
      .sort((a, b) => b.times * b[spender] - a.times * a[spender])
      .slice(0, SEARCHES_SHOWN)) {
      cumulative += search.times * search[spender];
      console.log(
        `| \`${search.body}\` | ${search.times} | ${search[spender].toFixed(1)} | ` +
          `${((100 * search.times * search[spender]) / total).toFixed(1)} % | ${((100 * cumulative) / total).toFixed(0)} % |`,
      );
    }
  }
}
