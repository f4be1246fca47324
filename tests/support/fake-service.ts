import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { closeServer } from "./close-server.js";

export interface FakeRequest {
  method: string;
  /** With its query string. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON; undefined without a body, or with a multipart one. */
  body: unknown;
  /** A multipart/form-data body, parsed (uploads). */
  form: FormData | undefined;
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

export type FakeOutcome = FakeAnswer | typeof HANG | typeof RESET;
export type FakeRoute = (request: FakeRequest) => FakeOutcome | Promise<FakeOutcome>;

interface Mounted {
  method: string;
  /** Query aside. */
  path: string;
  route: FakeRoute;
  /** Given to the next requests, one each, before the route answers again. */
  queued: FakeOutcome[];
}

/**
 * An HTTP service on 127.0.0.1 (a random port) that records every request and answers from routes a test
 * sets and changes as it goes, or with answers queued for the next requests; unrouted requests get 404.
 * The fakes of the engines' services build on it.
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

  /** Answers `method` requests to `path` (query aside); replaces the route of the same path, and its queue. */
  on(method: string, path: string, route: FakeRoute): this {
    const existing = this.mounted.findIndex((mounted) => mounted.method === method && mounted.path === path);
    if (existing >= 0) this.mounted.splice(existing, 1);
    this.mounted.push({ method, path, route, queued: [] });
    return this;
  }

  /** Answers the next requests to a route with `outcomes`, one each, then lets the route answer again. */
  queue(method: string, path: string, ...outcomes: FakeOutcome[]): this {
    const mounted = this.find(method, path);
    if (!mounted) throw new Error(`no route ${method} ${path}`);
    mounted.queued.push(...outcomes);
    return this;
  }

  /** Forgets the answers queued and not given: what one test queued does not reach the next. */
  clearQueues(): void {
    for (const mounted of this.mounted) mounted.queued = [];
  }

  /** The requests received so far on `method` `path` (query aside). */
  requestsTo(method: string, path: string): FakeRequest[] {
    return this.requests.filter((request) => request.method === method && pathOf(request) === path);
  }

  async start(): Promise<this> {
    const server = createServer(async (incoming, response) => {
      const request = await readFakeRequest(incoming);
      this.requests.push(request);
      const mounted = this.find(request.method, pathOf(request));
      if (!mounted) return void response.writeHead(404).end();
      const answer = mounted.queued.shift() ?? (await mounted.route(request));
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
    if (server) await closeServer(server);
  }

  private find(method: string, path: string): Mounted | undefined {
    return this.mounted.find((mounted) => mounted.method === method && mounted.path === path);
  }
}

/** A request as the fakes record it: its JSON body parsed, or its multipart form. */
export async function readFakeRequest(incoming: IncomingMessage): Promise<FakeRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const contentType = incoming.headers["content-type"] ?? "";
  const isMultipart = contentType.startsWith("multipart/form-data");
  return {
    method: incoming.method ?? "GET",
    path: incoming.url ?? "/",
    headers: incoming.headers,
    body: raw.length === 0 || isMultipart ? undefined : JSON.parse(raw.toString("utf8")),
    form: isMultipart
      ? await new Response(raw, { headers: { "content-type": contentType } }).formData()
      : undefined,
  };
}

function pathOf(request: FakeRequest): string {
  return request.path.split("?")[0] ?? request.path;
}

/** A gate a route awaits, to answer slowly: the test opens it once it has seen what it waits for. */
export function gate(): { opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
