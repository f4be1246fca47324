import { Module } from "@nestjs/common";
import { DependencyChecksRepository } from "../common/dependency-checks.repository.js";
import { HealthController } from "./health.controller.js";
import { HealthService } from "./health.service.js";

@Module({ controllers: [HealthController], providers: [HealthService, DependencyChecksRepository] })
export class HealthModule {}
