import { Controller, Get, Headers, Inject, Res, UnauthorizedException } from "@nestjs/common";
import type { FastifyReply } from "fastify";
import { isBearer } from "../common/bearer-token.js";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { UndocumentedPublic } from "../common/endpoint.decorator.js";
import { MetricsService } from "./metrics.service.js";

/** GET /metrics on the API's own port, for `Authorization: Bearer <METRICS_TOKEN>` (mounted only when set). */
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get("/metrics")
  @UndocumentedPublic()
  async render(
    @Headers("authorization") authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    if (!isBearer(authorization, this.config.metrics.token)) {
      throw new UnauthorizedException("metrics need Authorization: Bearer <METRICS_TOKEN>");
    }
    const { contentType, text } = await this.metrics.render();
    void reply.header("content-type", contentType);
    return text;
  }
}
