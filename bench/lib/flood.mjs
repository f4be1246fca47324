// One client flooding generation creates, in a process of its own so that its work does not slow the
// client measured beside it: node bench/lib/flood.mjs <base URL> <api key> <count> <seconds>.
// Prints how many of each status came back (0: no answer) and the first reason a request got no answer.
import { createBody } from "./generation-requests.mjs";
import { paced } from "./paced.mjs";

const [base, key, count, seconds] = process.argv.slice(2);
const outcomes = await paced(Number(count), Number(seconds), (index) =>
  fetch(`${base}/v1/image-generations`, {
    method: "POST",
    headers: { "api-key": key ?? "", "content-type": "application/json" },
    body: JSON.stringify(createBody(index)),
  }),
);
/** @type {Record<string, number>} */
const statuses = {};
for (const { status } of outcomes) statuses[status] = (statuses[status] ?? 0) + 1;
const firstError = outcomes.find((outcome) => outcome.error)?.error;
process.stdout.write(`${JSON.stringify({ statuses, firstError })}\n`);
