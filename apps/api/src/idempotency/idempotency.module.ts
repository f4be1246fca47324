import { Module } from "@nestjs/common";
import { IdempotencyInterceptor } from "./idempotency.interceptor.js";
import { IdempotencyRepository } from "./idempotency.repository.js";
import { IdempotencyService } from "./idempotency.service.js";

@Module({
  providers: [IdempotencyRepository, IdempotencyService, IdempotencyInterceptor],
  exports: [IdempotencyInterceptor],
})
export class IdempotencyModule {}
