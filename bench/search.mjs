// bench:search: the running API searching a 1,000,000-image catalogue under 50 connections, case by case,
// beside what PostgreSQL itself does with the very SQL the app sent (pgbench, same concurrency): the ceiling.
// Run through `npm run bench:search` (it builds first). BENCH_ROWS, BENCH_DURATION_S, BENCH_CONNECTIONS and
// BENCH_DATABASE_URL adjust it; BENCH_CASES (a comma-separated list of words of case names, e.g.
// "rare,filterFree") runs only the matching cases.
import { cpus } from "node:os";
import { stop } from "../tests/support/start-command.mjs";
import { startApi } from "./lib/api.mjs";
/** @typedef {import("./lib/api.mjs").RunningApi} RunningApi */
import { CONNECTIONS, DURATION_S, httpLoad, inlineParameters, pgbenchLoad } from "./lib/load.mjs";
import { BENCH_DATABASE_URL, prepareScratchCatalogue } from "./lib/scratch-catalogue.mjs";

const ALL_CASES = [
  { name: "common word (~10 %)", body: { search: "sunset" } },
  { name: "two words", body: { search: "fox forest" } },
  { name: "rare word", body: { search: "axolotl" } },
  { name: "misspelled word", body: { search: "elefant" } },
  { name: "no keyword, filterFree", body: { filterFree: true } },
  { name: "sort relevance", body: { search: "forest", sort: "relevance" } },
  { name: "sort newest", body: { search: "forest", sort: "newest" } },
  { name: "sort oldest", body: { search: "forest", sort: "oldest" } },
  { name: "sort popular", body: { search: "forest", sort: "popular" } },
  { name: "deep offset (10,000)", body: { offset: 10_000 } },
];
const chosen = process.env.BENCH_CASES?.split(",").map((word) => word.trim().toLowerCase());
const CASES = chosen
  ? ALL_CASES.filter((testCase) => chosen.some((word) => testCase.name.toLowerCase().includes(word)))
  : ALL_CASES;

/** @param {RunningApi} api @param {Record<string, unknown>} body */
function searchRequest(api, body) {
  return {
    url: `${api.base}/v1/images/search`,
    method: "POST",
    headers: { "api-key": api.key, "content-type": "application/json" },
    body: JSON.stringify(body),
  };
}

/**
 * The statements one search sends, read from the trace log around a single request.
 * @param {RunningApi} api @param {Record<string, unknown>} body
 */
async function statementsOf(api, body) {
  const before = api.started.output().length;
  const request = searchRequest(api, body);
  const response = await fetch(request.url, request);
  const answer = /** @type {{ filteredResults: number, images: unknown[] }} */ (await response.json());
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
  return { statements, filteredResults: answer.filteredResults, returned: answer.images?.length };
}

const rows = await prepareScratchCatalogue();
const tracing = await startApi("trace");
const sqlByCase = [];
for (const testCase of CASES) sqlByCase.push(await statementsOf(tracing, testCase.body));
await stop(tracing.started);

// As shipped, an answer is reused for identical searches (SEARCH_CACHE_SECONDS); the uncached run shows
// what each search costs when every request reaches PostgreSQL.
const cached = await startApi("warn");
const uncached = await startApi("warn", { SEARCH_CACHE_SECONDS: "0" });
/** @param {number} value */
const format = (value) => (Number.isFinite(value) ? value.toFixed(1) : "-");
/** @param {{ p50: number, p99: number, rate: number, errors: number }} run */
const columns = (run) =>
  `${format(run.p50)} | ${format(run.p99)} | ${run.rate.toFixed(0)}${run.errors ? ` (${run.errors} errors)` : ""}`;
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model}, node ${process.version}; ${rows} catalogue rows;`,
);
console.log(
  `${CONNECTIONS} connections, ${DURATION_S} s per case; app = HTTP through the API (cached: as shipped, ` +
    "uncached: SEARCH_CACHE_SECONDS=0), pg = pgbench on the app's SQL\n",
);
console.log(
  "| case | matches | cached p50 ms | cached p99 ms | cached req/s | uncached p50 ms | uncached p99 ms | " +
    "uncached req/s | pg p50 ms | pg p99 ms | pg tx/s | uncached/pg |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const [index, testCase] of CASES.entries()) {
  const runs = [];
  for (const api of [cached, uncached]) {
    await httpLoad(searchRequest(api, testCase.body), { durationS: 2 }); // warm caches and connections
    runs.push(await httpLoad(searchRequest(api, testCase.body)));
  }
  const [withCache, withoutCache] =
    /** @type {[Awaited<ReturnType<typeof httpLoad>>, Awaited<ReturnType<typeof httpLoad>>]} */ (runs);
  const { statements, filteredResults } = /** @type {(typeof sqlByCase)[number]} */ (sqlByCase[index]);
  const ceiling = await pgbenchLoad(BENCH_DATABASE_URL, statements);
  console.log(
    `| ${testCase.name} | ${filteredResults} | ${columns(withCache)} | ${columns(withoutCache)} | ` +
      `${columns(ceiling)} | ${((100 * withoutCache.rate) / ceiling.rate).toFixed(0)} % |`,
  );
}
await stop(cached.started);
await stop(uncached.started);
