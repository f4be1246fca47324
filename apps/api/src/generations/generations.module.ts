import { type DynamicModule, Module } from "@nestjs/common";
import { CatalogueModule } from "../catalogue/catalogue.module.js";
import type { AppConfig } from "../common/config.js";
import { EnginesModule } from "../engines/engines.module.js";
import { GenerationRunnerService } from "./generation-runner.service.js";
import { AccountGenerationsController, GenerationsController } from "./generations.controller.js";
import { GenerationsRepository } from "./generations.repository.js";
import { GenerationsService } from "./generations.service.js";

/** The interface where the role serves HTTP; the runner (with the engine) where it runs jobs. */
@Module({})
export class GenerationsModule {
  static forConfig(config: AppConfig): DynamicModule {
    const servesHttp = config.role !== "worker";
    const runsJobs = config.role !== "api";
    return {
      module: GenerationsModule,
      imports: [
        ...(servesHttp ? [CatalogueModule] : []),
        ...(runsJobs ? [EnginesModule.forConfig(config)] : []),
      ],
      controllers: servesHttp ? [GenerationsController, AccountGenerationsController] : [],
      providers: [
        GenerationsRepository,
        ...(servesHttp ? [GenerationsService] : []),
        ...(runsJobs ? [GenerationRunnerService] : []),
      ],
    };
  }
}
