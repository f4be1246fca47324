// Webhook endpoints for bench:webhooks, in their own process so that they do not share the bench's event
// loop: RECEIVERS HTTP servers on 127.0.0.1 answering 204 at once, each noting when every webhook-id came.
// Sends { ports } once listening; on "report", sends back [webhook-id, received at (ms)] pairs per receiver.
import { once } from "node:events";
import { createServer } from "node:http";

const count = Number(process.env.RECEIVERS ?? 2);
/** @type {[string, number][][]} */
const received = Array.from({ length: count }, () => []);
const servers = received.map((log) =>
  createServer((request, response) => {
    log.push([String(request.headers["webhook-id"]), Date.now()]);
    request.resume();
    request.on("end", () => response.writeHead(204).end());
  }).listen(0, "127.0.0.1"),
);
await Promise.all(servers.map((server) => once(server, "listening")));
process.send?.({
  ports: servers.map((server) => /** @type {import("node:net").AddressInfo} */ (server.address()).port),
});
process.on("message", (message) => {
  if (message === "report") process.send?.({ received });
  if (message === "reset") for (const log of received) log.length = 0;
});
