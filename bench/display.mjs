// bench:display: the throughput of a cached preview (GET /v1/images/preview/{id}.jpg, already rendered and
// stored) beside a no-op route of the same app (GET /health/live), same run, 50 connections.
// Run through `npm run bench:display` (it builds first).
import { cpus } from "node:os";
import { stop } from "../tests/support/start-command.mjs";
import { startApi } from "./lib/api.mjs";
import { CONNECTIONS, DURATION_S, httpLoad } from "./lib/load.mjs";
import { prepareScratchCatalogue } from "./lib/scratch-catalogue.mjs";

await prepareScratchCatalogue();
const api = await startApi("warn");
try {
  const search = await fetch(`${api.base}/v1/images/search`, {
    method: "POST",
    headers: { "api-key": api.key, "content-type": "application/json" },
    body: JSON.stringify({ limit: 1 }),
  });
  const { images } = /** @type {{ images: { id: string }[] }} */ (await search.json());
  const preview = `${api.base}/v1/images/preview/${images[0]?.id}.jpg`;
  if ((await fetch(preview)).status !== 200) throw new Error("the preview could not be rendered");

  await httpLoad({ url: `${api.base}/health/live` }, { durationS: 2 });
  const noop = await httpLoad({ url: `${api.base}/health/live` });
  await httpLoad({ url: preview }, { durationS: 2 });
  const cached = await httpLoad({ url: preview });
  const line = (/** @type {string} */ name, /** @type {Awaited<ReturnType<typeof httpLoad>>} */ result) =>
    `| ${name} | ${result.p50.toFixed(1)} | ${result.p99.toFixed(1)} | ${result.rate.toFixed(0)} | ${result.errors} |`;
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model}, node ${process.version}; ${CONNECTIONS} connections, ${DURATION_S} s each\n`,
  );
  console.log("| route | p50 ms | p99 ms | req/s | errors |");
  console.log("|---|---|---|---|---|");
  console.log(line("GET /health/live (no-op)", noop));
  console.log(line("GET /v1/images/preview/{id}.jpg (cached)", cached));
  console.log(
    `\ncached preview: ${((100 * cached.rate) / noop.rate).toFixed(0)} % of the no-op route's throughput`,
  );
} finally {
  await stop(api.started);
}
