import type { PrismaClient } from "@imagehub/db";
import { Inject, Injectable, Logger } from "@nestjs/common";
import { PRISMA } from "../common/core.module.js";
import { OnJob } from "../jobs/on-job.decorator.js";
import { indexLeftoverImagesJob } from "./catalogue.jobs.js";
import { flushLeftoverSearchIndex } from "./search/index-writer.js";

/**
 * How long a pending image waits before the workers index it. A text-only load flushes its own every 20,000
 * images, seconds apart, so what waits this long was left by a load that stopped, or belongs to a load slow
 * enough (one storing pictures) to be indexed sooner this way than by its own next flush.
 */
const LEFTOVER_AFTER_SECONDS = 60;

/** The workers' side of the search index: what a stopped bulk load left unindexed is indexed all the same. */
@Injectable()
export class CatalogueIndexService {
  private readonly logger = new Logger(CatalogueIndexService.name);

  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  @OnJob(indexLeftoverImagesJob)
  async indexLeftovers(): Promise<{ indexed: number }> {
    const indexed = await flushLeftoverSearchIndex(this.prisma, LEFTOVER_AFTER_SECONDS);
    if (indexed > 0) this.logger.log(`indexed for search ${indexed} images a stopped bulk load left pending`);
    return { indexed };
  }
}
