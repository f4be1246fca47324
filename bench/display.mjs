// bench:display: a cached preview (GET /v1/images/preview/{id}.jpg, already rendered and stored) beside a no-op
// route of the same app (GET /health/live), 50 connections, interleaved in slices (no-op, preview, no-op,
// preview…, no-op) so that a busy machine slows both alike: each preview slice is compared with the mean of the
// no-op slices around it, and the median and spread of those ratios are the result. Every display is counted
// against the display budget (set high enough that none is refused), as in production. Then the same preview
// asked again with its ETag (If-None-Match: 304, no body). Each slice also reports the CPU time per request of the
// API process and of the load generator (wrk), and a last pair of slices measures a bare
// node:http server answering the same preview bytes and a small JSON body: what the bytes cost on their way through
// the loopback to a load generator on the same machine, with no API work at all.
// BENCH_STORAGE=s3 keeps the files in a bucket of a local S3-compatible server (s3rver) and measures two
// previews in each slice: sent by the API from the bucket, and answered with a 302 to the bucket
// (S3_DISPLAY_REDIRECT_SECONDS; the load generator does not follow it: the bucket or a CDN carries the bytes).
// Run through `npm run bench:display` (it builds first). BENCH_SLICES (default 3) and BENCH_DURATION_S (each
// slice, default 10) adjust it; BENCH_CPU_PROF_DIR profiles the API.
import { cpus, loadavg } from "node:os";
import { startS3Server, storageOn } from "../tests/support/s3-server.mjs";
import { stop } from "../tests/support/start-command.mjs";
import { startApi } from "./lib/api.mjs";
import { startBareServer } from "./lib/bare-server.mjs";
import { CONNECTIONS, DURATION_S, httpLoad } from "./lib/load.mjs";
import { cpuMs } from "./lib/process-cpu.mjs";
import { prepareScratchCatalogue } from "./lib/scratch-catalogue.mjs";
import { percentile } from "./lib/stats.mjs";

const SLICES = Number(process.env.BENCH_SLICES ?? 3);
const ON_S3 = process.env.BENCH_STORAGE === "s3";

/** The 1-minute load average now: how busy the (possibly shared) machine was. */
const load = () => loadavg()[0]?.toFixed(1) ?? "—";

await prepareScratchCatalogue();
const s3 = ON_S3 ? await startS3Server("imagehub-bench") : undefined;
const storage = s3 ? storageOn(s3) : {};
const api = await startApi("warn", { RATE_LIMIT_DISPLAY: "1000000", ...storage });
const redirecting = s3
  ? await startApi("warn", { RATE_LIMIT_DISPLAY: "1000000", ...storage, S3_DISPLAY_REDIRECT_SECONDS: "300" })
  : undefined;
/** @type {Awaited<ReturnType<typeof startBareServer>> | undefined} */
let bare;
try {
  const search = await fetch(`${api.base}/v1/images/search`, {
    method: "POST",
    headers: { "api-key": api.key, "content-type": "application/json" },
    body: JSON.stringify({ limit: 1 }),
  });
  const { images } = /** @type {{ images: { id: string }[] }} */ (await search.json());
  const path = `/v1/images/preview/${images[0]?.id}.jpg`;
  const first = await fetch(`${api.base}${path}`);
  if (first.status !== 200) throw new Error("the preview could not be rendered");
  const previewBytes = (await first.arrayBuffer()).byteLength;
  const etag = first.headers.get("etag") ?? "";

  const apiPid = api.started.child.pid ?? 0;
  const noopRoute = { url: `${api.base}/health/live`, pid: apiPid };
  /** The routes each slice measures, each beside the no-op slices around it. */
  const measured = [
    {
      name: `GET ${path.replace(/[^/]+\.jpg$/, "{id}.jpg")} (cached${s3 ? ", sent from the bucket" : ""})`,
      route: { url: `${api.base}${path}`, pid: apiPid },
    },
    ...(redirecting
      ? [
          {
            name: "the same, S3_DISPLAY_REDIRECT_SECONDS (302 to the bucket)",
            route: { url: `${redirecting.base}${path}`, pid: redirecting.started.child.pid ?? 0 },
          },
        ]
      : []),
  ];
  if (redirecting && (await fetch(measured[1]?.route.url ?? "", { redirect: "manual" })).status !== 302) {
    throw new Error("the redirecting API did not answer 302");
  }
  await httpLoad(noopRoute, { durationS: 2 });
  for (const { route } of measured) await httpLoad(route, { durationS: 2 });
  /** Load on `route`, with the CPU time per request of the process that answers (`pid`) and of the load generator. */
  const measure = async (
    /** @type {{ url: string, pid: number, headers?: Record<string, string> }} */ route,
  ) => {
    const [serverBefore, startedAt] = [cpuMs(route.pid), performance.now()];
    const result = await httpLoad(route);
    const requests = (result.rate * (performance.now() - startedAt)) / 1000;
    return {
      ...result,
      serverUs: (1000 * (cpuMs(route.pid) - serverBefore)) / requests,
      generatorUs: (1000 * result.clientMs) / requests,
      load: load(),
    };
  };
  const noops = [await measure(noopRoute)];
  /** @type {{ name: string, result: Awaited<ReturnType<typeof measure>>, share: number, p99Ratio: number, after: Awaited<ReturnType<typeof measure>> }[]} */
  const slices = [];
  for (let slice = 0; slice < SLICES; slice++) {
    process.stderr.write(`slice ${slice + 1} of ${SLICES}\n`);
    for (const { name, route } of measured) {
      const before = /** @type {Awaited<ReturnType<typeof measure>>} */ (noops.at(-1));
      const result = await measure(route);
      const after = await measure(noopRoute);
      noops.push(after);
      slices.push({
        name,
        result,
        after,
        share: (200 * result.rate) / (before.rate + after.rate),
        p99Ratio: (2 * result.p99) / (before.p99 + after.p99),
      });
    }
  }
  const notModified = await measure({
    url: `${api.base}${path}`,
    pid: apiPid,
    headers: { "if-none-match": etag },
  });
  bare = await startBareServer(`${api.base}${path}`);
  const bareBytes = await measure({ url: `${bare.base}/bytes`, pid: bare.pid });
  const bareSmall = await measure({ url: `${bare.base}/small`, pid: bare.pid });

  /** @param {string} name @param {Awaited<ReturnType<typeof measure>>} result @param {string} share */
  const line = (name, result, share) =>
    `| ${name} | ${result.p50.toFixed(1)} | ${result.p99.toFixed(1)} | ${result.rate.toFixed(0)} | ${share} | ${result.serverUs.toFixed(0)} | ${result.generatorUs.toFixed(0)} | ${result.errors} | ${result.load} |`;
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model}, node ${process.version}; ${CONNECTIONS} connections, ${DURATION_S} s a slice; preview ${previewBytes} bytes; storage ${s3 ? "S3 (s3rver)" : "local files"}\n`,
  );
  console.log(
    "| slice | p50 ms | p99 ms | req/s | share of the no-op around it | server CPU µs/request | load generator CPU µs/request | errors | load average |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  console.log(
    line("GET /health/live (no-op)", /** @type {Awaited<ReturnType<typeof measure>>} */ (noops[0]), "—"),
  );
  for (const { name, result, share, after } of slices) {
    console.log(line(name, result, `${share.toFixed(0)} %`));
    console.log(line("GET /health/live (no-op)", after, "—"));
  }
  const noopRate = noops.reduce((sum, result) => sum + result.rate, 0) / noops.length;
  console.log(
    line(
      "the preview again, If-None-Match: its ETag (304)",
      notModified,
      `${((100 * notModified.rate) / noopRate).toFixed(0)} % of the mean no-op`,
    ),
  );
  console.log(line(`a bare node:http server, the same ${previewBytes} bytes`, bareBytes, "—"));
  console.log(
    line(
      "a bare node:http server, a small JSON body",
      bareSmall,
      `the bytes: ${((100 * bareBytes.rate) / bareSmall.rate).toFixed(0)} % of this`,
    ),
  );
  for (const { name } of measured) {
    const shares = slices.filter((slice) => slice.name === name).map((slice) => slice.share);
    const p99Ratios = slices.filter((slice) => slice.name === name).map((slice) => slice.p99Ratio);
    console.log(
      `\n${name}: median ${percentile(shares, 50).toFixed(0)} % of the no-op route's throughput over ${shares.length} slices (spread ${Math.min(...shares).toFixed(0)}–${Math.max(...shares).toFixed(0)} %; target ≥ 60 %), p99 ${percentile(p99Ratios, 50).toFixed(1)} × the no-op's (target ≤ 2)`,
    );
  }
} finally {
  await stop(api.started);
  if (redirecting) await stop(redirecting.started);
  await s3?.close();
  bare?.close();
}
