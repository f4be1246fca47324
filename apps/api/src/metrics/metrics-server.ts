import { createServer, type Server } from "node:http";
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { MetricsService } from "./metrics.service.js";

/**
 * With METRICS_PORT, serves GET /metrics on a port of its own: worker processes have no other HTTP
 * server, and a scraper on a private network then needs no token.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger("Metrics");
  private server: Server | undefined;

  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { port, host } = this.config.metrics;
    if (port === undefined) return;
    this.server = createServer((request, response) => {
      if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
        response.writeHead(404).end();
        return;
      }
      this.metrics.render().then(
        ({ contentType, text }) => response.writeHead(200, { "content-type": contentType }).end(text),
        (error: Error) => {
          this.logger.error(`metrics not rendered: ${error.message}`);
          response.writeHead(500).end();
        },
      );
    });
    const server = this.server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, resolve);
    });
    this.logger.log(`metrics at http://${host}:${this.port()}/metrics`);
  }

  /** The port listened on (METRICS_PORT=0 picks a free one). */
  port(): number | undefined {
    const address = this.server?.address();
    return typeof address === "object" && address ? address.port : undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise((resolve) => server.close(resolve));
  }
}
