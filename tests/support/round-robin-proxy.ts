import { once } from "node:events";
import { createServer, request as forward, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { closeServer } from "./close-server.js";

export interface ProxiedRequest {
  backend: number;
  method: string;
  path: string;
}

/**
 * The load balancer in front of several API processes, in a few lines: each request goes to the next
 * backend in turn, and is recorded with the backend that served it.
 */
export class RoundRobinProxy {
  readonly requests: ProxiedRequest[] = [];
  backends: string[] = [];
  private server: Server | undefined;
  private next = 0;

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo | undefined)?.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((incoming, outgoing) => {
      const backend = this.next++ % this.backends.length;
      this.requests.push({ backend, method: incoming.method ?? "GET", path: incoming.url ?? "/" });
      const target = new URL(incoming.url ?? "/", this.backends[backend]);
      const upstream = forward(target, { method: incoming.method, headers: incoming.headers }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      });
      upstream.on("error", () => outgoing.writeHead(502).end());
      incoming.pipe(upstream);
    });
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    return this;
  }

  async stop(): Promise<void> {
    if (this.server) await closeServer(this.server);
  }
}
