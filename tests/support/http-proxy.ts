import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface HttpProxy {
  url: string;
  server: Server;
}

/**
 * A local HTTP proxy in front of other servers: a load balancer (`targetPort` picks each request's
 * server), or a slow network (`delayMs` before each request is passed on).
 */
export async function startHttpProxy(
  targetPort: () => number,
  { port = 0, delayMs = 0 }: { port?: number; delayMs?: number } = {},
): Promise<HttpProxy> {
  const server = createServer((request, response) => {
    setTimeout(() => {
      request.pipe(
        httpRequest(
          {
            host: "127.0.0.1",
            port: targetPort(),
            path: request.url,
            method: request.method,
            headers: request.headers,
          },
          (answer) => {
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(response);
          },
        ).on("error", () => response.writeHead(502).end()),
      );
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
