import { Global, Module } from "@nestjs/common";
import { FailureDelayRepository } from "./failure-delay.repository.js";
import { FastRedis } from "./fast-redis.js";

/** What requests count in Redis on their way (failed attempts), on the fail-fast connection. */
@Global()
@Module({
  providers: [FastRedis, FailureDelayRepository],
  exports: [FastRedis, FailureDelayRepository],
})
export class RequestCountersModule {}
