// A node:http server that does nothing but answer: GET /bytes the bytes of `url` (fetched once at start),
// anything else a small JSON body, with the headers a browser needs and no more. Beside an API route it tells
// how much of that route's time is the API's and how much the bytes' way through the loopback to the load
// generator on the same machine. Started with `startBareServer(url)`; run as a child process so that its CPU is
// its own.
import { fork } from "node:child_process";
import { createServer } from "node:http";

if (process.argv[2] === "serve") {
  const bytes = Buffer.from(await (await fetch(process.argv[3] ?? "")).arrayBuffer());
  const small = Buffer.from(JSON.stringify({ status: "ok" }));
  const server = createServer((request, response) => {
    const [body, type] = request.url === "/bytes" ? [bytes, "image/jpeg"] : [small, "application/json"];
    response.writeHead(200, { "content-type": type, "content-length": body.length });
    response.end(body);
  });
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    process.send?.(typeof address === "object" && address ? address.port : 0);
  });
}

/**
 * @param {string} url what GET /bytes answers
 * @returns {Promise<{ base: string, pid: number, close: () => void }>}
 */
export async function startBareServer(url) {
  const child = fork(new URL(import.meta.url).pathname, ["serve", url]);
  const port = await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", () => reject(new Error("the bare server exited before listening")));
  });
  return { base: `http://127.0.0.1:${port}`, pid: child.pid ?? 0, close: () => child.kill() };
}
