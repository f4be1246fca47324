import { type Health, type Liveness, operations } from "@imagehub/domain";
import { Controller } from "@nestjs/common";
import { Endpoint } from "../common/endpoint.decorator.js";
import { HealthService } from "./health.service.js";

@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Endpoint(operations.health)
  check(): Promise<Health> {
    return this.health.check();
  }

  @Endpoint(operations.liveness)
  live(): Liveness {
    return { status: "ok" };
  }
}
