import { type DynamicModule, Module } from "@nestjs/common";
import { CatalogueModule } from "../catalogue/catalogue.module.js";
import { CatalogueRepository } from "../catalogue/catalogue.repository.js";
import { ImageDisplayService } from "../catalogue/image-display.service.js";
import { ImageFilesRepository } from "../catalogue/image-files.repository.js";
import { ImageFilesService } from "../catalogue/image-files.service.js";
import { ImagePromptReader } from "../catalogue/image-prompt.reader.js";
import type { AppConfig } from "../common/config.js";
import { EnginesModule } from "../engines/engines.module.js";
import { GenerationRunnerService } from "./generation-runner.service.js";
import { GenerationRunsRepository } from "./generation-runs.repository.js";
import { AccountGenerationsController, GenerationsController } from "./generations.controller.js";
import { GenerationsRepository } from "./generations.repository.js";
import { GenerationsService } from "./generations.service.js";

/**
 * The interface where the role serves HTTP; the runner (with the engines, and the catalogue's display to
 * read image prompts of this server's own images) where it runs jobs.
 */
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
        GenerationRunsRepository,
        ...(servesHttp ? [GenerationsService] : []),
        ...(runsJobs && !servesHttp ? [CatalogueRepository, ImageFilesRepository, ImageFilesService] : []),
        ...(runsJobs ? [GenerationRunnerService, ImageDisplayService, ImagePromptReader] : []),
      ],
    };
  }
}
