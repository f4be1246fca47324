// One client flooding generation creates, in a process of its own so that its work does not slow the
// client measured beside it: node bench/lib/flood.mjs <base URL> <api key> <count> <seconds>.
// It starts, loads its HTTP client and opens a connection, prints "ready", and floods when a line comes on
// stdin: its own start-up (a second or more of CPU on a busy machine) stays out of the measured window, as
// it would on a client's own machine. Prints how many of each status came back (0: no answer), the first
// reason a request got no answer, when the flood started (epoch ms), each create's [sent at ms, answered
// after ms, status], and the CPU seconds the flood cost this process.
import { createInterface } from "node:readline";
import { createBody } from "./generation-requests.mjs";
import { paced } from "./paced.mjs";

const [base, key, count, seconds] = process.argv.slice(2);
await (await fetch(`${base}/health/live`)).arrayBuffer();
process.stdout.write("ready\n");
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once("line", resolve));
lines.close();

const startedAt = performance.timeOrigin + performance.now();
const cpuBefore = process.cpuUsage();
const outcomes = await paced(Number(count), Number(seconds), (index) =>
  fetch(`${base}/v1/image-generations`, {
    method: "POST",
    headers: { "api-key": key ?? "", "content-type": "application/json" },
    body: JSON.stringify(createBody(index)),
  }),
);
const cpu = process.cpuUsage(cpuBefore);
/** @type {Record<string, number>} */
const statuses = {};
for (const { status } of outcomes) statuses[status] = (statuses[status] ?? 0) + 1;
const firstError = outcomes.find((outcome) => outcome.error)?.error;
process.stdout.write(
  `${JSON.stringify({
    statuses,
    firstError,
    startedAt,
    creates: outcomes.map(({ at, ms, status }) => [Math.round(at), Math.round(ms), status]),
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  })}\n`,
);
