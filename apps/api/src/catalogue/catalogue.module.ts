import { Module } from "@nestjs/common";
import { AccountCatalogueController, CatalogueController } from "./catalogue.controller.js";
import { CatalogueRepository } from "./catalogue.repository.js";
import { ImageDisplayService } from "./image-display.service.js";
import { ImageFilesRepository } from "./image-files.repository.js";
import { ImageFilesService } from "./image-files.service.js";
import { ImageSearchService } from "./image-search.service.js";

@Module({
  controllers: [CatalogueController, AccountCatalogueController],
  providers: [
    CatalogueRepository,
    ImageSearchService,
    ImageFilesRepository,
    ImageFilesService,
    ImageDisplayService,
  ],
  exports: [CatalogueRepository, ImageFilesService, ImageSearchService],
})
export class CatalogueModule {}
