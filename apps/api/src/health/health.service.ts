import type { Health } from "@imagehub/domain";
import { Injectable } from "@nestjs/common";
import { DependencyChecksRepository } from "../common/dependency-checks.repository.js";
import { Unavailable } from "../common/domain-errors.js";
import { ShutdownState } from "../common/shutdown-state.js";

@Injectable()
export class HealthService {
  constructor(
    private readonly health: DependencyChecksRepository,
    private readonly shutdown: ShutdownState,
  ) {}

  async check(): Promise<Health> {
    if (this.shutdown.isStopping) throw new Unavailable("stopping: send requests elsewhere");
    const [database, redis] = await Promise.all([this.health.isDatabaseUp(), this.health.isRedisUp()]);
    const checks = { database: database ? "ok" : "down", redis: redis ? "ok" : "down" } as const;
    if (!database || !redis) {
      throw new Unavailable(
        Object.entries(checks)
          .filter(([, state]) => state === "down")
          .map(([name]) => `${name} is down`),
      );
    }
    return { status: "ok", checks };
  }
}
