// bench:display: a cached preview (GET /v1/images/preview/{id}.jpg, already rendered and stored) beside a no-op
// route of the same app (GET /health/live), 50 connections, interleaved in slices (no-op, preview, no-op,
// preview…, no-op) so that a busy machine slows both alike: each preview slice is compared with the mean of the
// no-op slices around it, and the median and spread of those ratios are the result. Every display is counted
// against the display budget (set high enough that none is refused), as in production. Then the same preview
// asked again with its ETag (If-None-Match: 304, no body).
// Run through `npm run bench:display` (it builds first). BENCH_SLICES (default 3) and BENCH_DURATION_S (each
// slice, default 10) adjust it; BENCH_CPU_PROF_DIR profiles the API.
import { cpus, loadavg } from "node:os";
import { stop } from "../tests/support/start-command.mjs";
import { startApi } from "./lib/api.mjs";
import { CONNECTIONS, DURATION_S, httpLoad } from "./lib/load.mjs";
import { prepareScratchCatalogue } from "./lib/scratch-catalogue.mjs";
import { percentile } from "./lib/stats.mjs";

const SLICES = Number(process.env.BENCH_SLICES ?? 3);

/** The 1-minute load average now: how busy the (possibly shared) machine was. */
const load = () => loadavg()[0]?.toFixed(1) ?? "—";

await prepareScratchCatalogue();
const api = await startApi("warn", { RATE_LIMIT_DISPLAY: "1000000" });
try {
  const search = await fetch(`${api.base}/v1/images/search`, {
    method: "POST",
    headers: { "api-key": api.key, "content-type": "application/json" },
    body: JSON.stringify({ limit: 1 }),
  });
  const { images } = /** @type {{ images: { id: string }[] }} */ (await search.json());
  const preview = `${api.base}/v1/images/preview/${images[0]?.id}.jpg`;
  const first = await fetch(preview);
  if (first.status !== 200) throw new Error("the preview could not be rendered");
  const previewBytes = (await first.arrayBuffer()).byteLength;
  const etag = first.headers.get("etag") ?? "";

  const noopRoute = { url: `${api.base}/health/live` };
  const previewRoute = { url: preview };
  await httpLoad(noopRoute, { durationS: 2 });
  await httpLoad(previewRoute, { durationS: 2 });
  const measure = async (/** @type {{ url: string, headers?: Record<string, string> }} */ route) => ({
    ...(await httpLoad(route)),
    load: load(),
  });
  const firstNoop = await measure(noopRoute);
  const noops = [firstNoop];
  const previews = [];
  for (let slice = 0; slice < SLICES; slice++) {
    process.stderr.write(`slice ${slice + 1} of ${SLICES}\n`);
    previews.push(await measure(previewRoute));
    noops.push(await measure(noopRoute));
  }
  const notModified = await measure({ url: preview, headers: { "if-none-match": etag } });

  /** @param {string} name @param {Awaited<ReturnType<typeof measure>>} result @param {string} share */
  const line = (name, result, share) =>
    `| ${name} | ${result.p50.toFixed(1)} | ${result.p99.toFixed(1)} | ${result.rate.toFixed(0)} | ${share} | ${result.errors} | ${result.load} |`;
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model}, node ${process.version}; ${CONNECTIONS} connections, ${DURATION_S} s a slice; preview ${previewBytes} bytes\n`,
  );
  console.log("| slice | p50 ms | p99 ms | req/s | share of the no-op around it | errors | load average |");
  console.log("|---|---|---|---|---|---|---|");
  /** @type {number[]} */
  const shares = [];
  /** @type {number[]} */
  const p99Ratios = [];
  console.log(line("GET /health/live (no-op)", firstNoop, "—"));
  previews.forEach((result, index) => {
    const [before, after] = [noops[index], noops[index + 1]];
    if (!before || !after) return;
    const share = (2 * result.rate) / (before.rate + after.rate);
    shares.push(100 * share);
    p99Ratios.push((2 * result.p99) / (before.p99 + after.p99));
    console.log(line("GET /v1/images/preview/{id}.jpg (cached)", result, `${(100 * share).toFixed(0)} %`));
    console.log(line("GET /health/live (no-op)", after, "—"));
  });
  const noopRate = noops.reduce((sum, result) => sum + result.rate, 0) / noops.length;
  console.log(
    line(
      "the preview again, If-None-Match: its ETag (304)",
      notModified,
      `${((100 * notModified.rate) / noopRate).toFixed(0)} % of the mean no-op`,
    ),
  );
  console.log(
    `\ncached preview: median ${percentile(shares, 50).toFixed(0)} % of the no-op route's throughput over ${shares.length} slices (spread ${Math.min(...shares).toFixed(0)}–${Math.max(...shares).toFixed(0)} %; target ≥ 60 %), p99 ${percentile(p99Ratios, 50).toFixed(1)} × the no-op's (target ≤ 2)`,
  );
} finally {
  await stop(api.started);
}
