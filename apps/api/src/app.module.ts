import { type DynamicModule, Module, type Type } from "@nestjs/common";
import { APP_GUARD, APP_INTERCEPTOR } from "@nestjs/core";
import { AccountAreaModule } from "./account-area/account-area.module.js";
import { AccountsModule } from "./accounts/accounts.module.js";
import { JOBS } from "./app.jobs.js";
import { ApiKeyGuard } from "./auth/api-key.guard.js";
import { RateLimitGuard } from "./auth/rate-limit.guard.js";
import { CatalogueModule } from "./catalogue/catalogue.module.js";
import { CatalogueJobsModule } from "./catalogue/catalogue-jobs.module.js";
import { CoreModule, type Resources } from "./common/core.module.js";
import { OperationInterceptor } from "./common/operation.interceptor.js";
import { RateLimitRepository } from "./common/rate-limit.repository.js";
import { RequestCountersModule } from "./common/request-counters.module.js";
import { DocsModule } from "./docs/docs.module.js";
import { GenerationsModule } from "./generations/generations.module.js";
import { HealthModule } from "./health/health.module.js";
import { IdempotencyInterceptor } from "./idempotency/idempotency.interceptor.js";
import { IdempotencyModule } from "./idempotency/idempotency.module.js";
import { JobsModule } from "./jobs/jobs.module.js";
import { MetricsModule } from "./metrics/metrics.module.js";
import { PurchasesModule } from "./purchases/purchases.module.js";
import { StorageModule } from "./storage/storage.module.js";
import { WebhooksModule } from "./webhooks/webhooks.module.js";

@Module({})
export class AppModule {
  /** The modules of one process: the HTTP interface for `api`, the queue workers for `worker`, both for `all`. */
  static forResources(resources: Resources, extraModules: Type[] = []): DynamicModule {
    const servesHttp = resources.config.role !== "worker";
    const runsJobs = resources.config.role !== "api";
    return {
      module: AppModule,
      imports: [
        CoreModule.forResources(resources),
        RequestCountersModule,
        MetricsModule.forConfig(resources.config),
        JobsModule.forResources(resources, JOBS),
        AccountsModule,
        StorageModule.forConfig(resources.config),
        GenerationsModule.forConfig(resources.config),
        WebhooksModule.forConfig(resources.config),
        IdempotencyModule,
        ...(servesHttp
          ? [HealthModule, DocsModule, CatalogueModule, PurchasesModule, AccountAreaModule]
          : []),
        ...(runsJobs ? [CatalogueJobsModule] : []),
        ...extraModules,
      ],
      providers: servesHttp
        ? [
            // In this order: an account's own rate limits are known once its key is.
            { provide: APP_GUARD, useClass: ApiKeyGuard },
            { provide: APP_GUARD, useClass: RateLimitGuard },
            RateLimitRepository,
            { provide: APP_INTERCEPTOR, useClass: OperationInterceptor },
            // After validation: the body compared is the parsed one.
            { provide: APP_INTERCEPTOR, useExisting: IdempotencyInterceptor },
          ]
        : [],
    };
  }
}
