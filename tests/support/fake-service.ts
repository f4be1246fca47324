import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeRequest {
  method: string;
  /** With its query string. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON; undefined without a body. */
  body: unknown;
}

export interface FakeAnswer {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  bytes?: Buffer;
}

/** Never answered: the caller's time limit is what ends it. */
export const HANG = "hang";
/** The connection dropped without an answer, as by a service that crashed or a network that failed. */
export const RESET = "reset";

/** Answers the `count`-th request (0-based) that reached this route. */
export type FakeRoute = (
  request: FakeRequest,
  count: number,
) => FakeAnswer | typeof HANG | typeof RESET | Promise<FakeAnswer | typeof HANG | typeof RESET>;

interface Mounted {
  method: string;
  path: RegExp;
  route: FakeRoute;
  count: number;
}

/**
 * An HTTP service on 127.0.0.1 (a random port) that records every request and answers from routes a test
 * sets and changes as it goes; unrouted requests get 404. The fakes of the engines' services build on it.
 */
export class FakeService {
  readonly requests: FakeRequest[] = [];
  private readonly mounted: Mounted[] = [];
  private server: Server | undefined;

  get url(): string {
    const address = this.server?.address() as AddressInfo | undefined;
    if (!address) throw new Error("the fake service is not started");
    return `http://127.0.0.1:${address.port}`;
  }

  /** Answers `method` requests whose path (query aside) matches `path`; replaces a route of the same path. */
  on(method: string, path: string | RegExp, route: FakeRoute): this {
    const pattern =
      typeof path === "string" ? new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) : path;
    const existing = this.mounted.findIndex(
      (mounted) => mounted.method === method && mounted.path.source === pattern.source,
    );
    if (existing >= 0) this.mounted.splice(existing, 1);
    this.mounted.push({ method, path: pattern, route, count: 0 });
    return this;
  }

  /** The requests received so far on `method` `path` (query aside). */
  requestsTo(method: string, path: string | RegExp): FakeRequest[] {
    return this.requests.filter(
      (request) =>
        request.method === method &&
        (typeof path === "string" ? pathOf(request) === path : path.test(pathOf(request))),
    );
  }

  async start(): Promise<this> {
    const server = createServer(async (incoming, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString("utf8");
      const request: FakeRequest = {
        method: incoming.method ?? "GET",
        path: incoming.url ?? "/",
        headers: incoming.headers,
        body: text === "" ? undefined : JSON.parse(text),
      };
      this.requests.push(request);
      const mounted = this.mounted.find(
        (candidate) => candidate.method === request.method && candidate.path.test(pathOf(request)),
      );
      if (!mounted) return void response.writeHead(404).end();
      const answer = await mounted.route(request, mounted.count++);
      // Left open until the caller gives up or the fake stops.
      if (answer === HANG) return;
      if (answer === RESET) return void incoming.socket.destroy();
      const body = answer.json !== undefined ? Buffer.from(JSON.stringify(answer.json)) : answer.bytes;
      response
        .writeHead(answer.status ?? 200, {
          ...(answer.json !== undefined && { "content-type": "application/json" }),
          ...answer.headers,
        })
        .end(body);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  }
}

function pathOf(request: FakeRequest): string {
  return request.path.split("?")[0] ?? request.path;
}
