import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebhookEnvelope } from "@imagehub/domain";
import { closeServer } from "./close-server.js";
import { until } from "./until.js";

export interface ReceivedWebhook {
  headers: IncomingMessage["headers"];
  body: string;
  envelope: WebhookEnvelope;
}

/** How the receiver answers one request: a status, headers, and a pause before answering. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** Answers the n-th request (0-based, counted over the receiver's life). */
export type Responder = (request: ReceivedWebhook, index: number) => Answer;

/**
 * A webhook endpoint on 127.0.0.1 that records every POST. It can be stopped and started again on the same
 * port, to play an endpoint that is down for a while.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Connections opened to it: fewer than requests when the sender keeps them alive. */
  connections = 0;
  private server: Server | undefined;
  private port = 0;

  constructor(private responder: Responder = () => ({ status: 200 })) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  answerWith(responder: Responder): void {
    this.responder = responder;
  }

  async start(): Promise<this> {
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString("utf8");
      const received = { headers: request.headers, body, envelope: JSON.parse(body) as WebhookEnvelope };
      const answer = this.responder(received, this.received.length);
      this.received.push(received);
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      if (!response.destroyed) response.writeHead(answer.status, answer.headers).end();
    });
    server.on("connection", () => {
      this.connections += 1;
    });
    server.listen(this.port, "127.0.0.1");
    await once(server, "listening");
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await closeServer(server);
  }

  /** Waits until `count` requests have come in all. */
  async waitFor(count: number, timeoutMs = 30_000): Promise<ReceivedWebhook[]> {
    await until(() => this.received.length >= count, {
      timeoutMs,
      what: `${count} webhook requests`,
    });
    return this.received;
  }
}
