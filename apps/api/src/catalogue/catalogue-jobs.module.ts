import { Module } from "@nestjs/common";
import { CatalogueIndexService } from "./catalogue-index.service.js";

/** The catalogue's jobs, in the processes that run jobs (the HTTP interface is CatalogueModule). */
@Module({ providers: [CatalogueIndexService] })
export class CatalogueJobsModule {}
