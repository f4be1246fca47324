import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy on 127.0.0.1 in front of a server (PostgreSQL, say), that can play the server going away:
 * `cut()` drops every connection and refuses new ones until `restore()`, as a stopped server does; and
 * the server hanging: `hang()` keeps connections open but forwards nothing (counting what clients send)
 * until `resume()`, as a stopped (SIGSTOP) or swapping server does.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  private isHung = false;
  /** Bytes clients sent while the proxy hung, none of them forwarded. */
  bytesHeld = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  get address(): { host: string; port: number } {
    return { host: "127.0.0.1", port: this.port };
  }

  async start(): Promise<this> {
    const server = createServer((client) => {
      const upstream = createConnection(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.on("data", (chunk: Buffer) => {
        if (this.isHung) this.bytesHeld += chunk.length;
        else upstream.write(chunk);
      });
      upstream.on("data", (chunk: Buffer) => {
        if (!this.isHung) client.write(chunk);
      });
    });
    server.listen(this.port, "127.0.0.1");
    await once(server, "listening");
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Every connection dropped, new ones refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  /** Nothing forwarded either way from now on, the connections kept open. */
  hang(): void {
    this.isHung = true;
  }

  /** Forwarding again, on new connections: the hung ones are dropped (what they held is lost). */
  resume(): void {
    this.isHung = false;
    for (const socket of this.sockets) socket.destroy();
  }

  /** Listening again, on the same port. */
  async restore(): Promise<this> {
    return this.server ? this : this.start();
  }
}
