import { type DynamicModule, Global, Module } from "@nestjs/common";
import type { AppConfig } from "../common/config.js";
import { MetricsController } from "./metrics.controller.js";
import { MetricsService } from "./metrics.service.js";
import { MetricsServer } from "./metrics-server.js";

/** The process's metrics, which every area records into; served as METRICS_PORT and METRICS_TOKEN say. */
@Global()
@Module({})
export class MetricsModule {
  static forConfig(config: AppConfig): DynamicModule {
    const servesHttp = config.role !== "worker";
    return {
      module: MetricsModule,
      controllers: servesHttp && config.metrics.token ? [MetricsController] : [],
      providers: [MetricsService, MetricsServer],
      exports: [MetricsService],
    };
  }
}
