import type { SearchImagesRequest, SearchImagesResponse } from "@imagehub/domain";
import { Inject, Injectable, Logger } from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { MetricsService } from "../metrics/metrics.service.js";
import { CatalogueRepository, type SearchCriteria } from "./catalogue.repository.js";
import { toImage } from "./display-url.js";

/** An answer kept for reuse, and when the database was asked for it (performance.now()). */
interface ReusedAnswer {
  answer: SearchImagesResponse;
  computedAt: number;
}

@Injectable()
export class ImageSearchService {
  private readonly logger = new Logger(ImageSearchService.name);

  /**
   * Many people run the same few searches: each answer is reused for `searchCacheSeconds`, and identical
   * searches arriving together share one query instead of each costing the database the same work. Past
   * that, the next one gets the answer at once while a fresh one is computed for those after it, so that a
   * popular search never waits for its own renewal; an answer twice that old is not used any more. A new
   * image or a purchase (popularity) shows in such a search once its answer has been renewed.
   */
  private readonly recentAnswers: LRUCache<string, ReusedAnswer, SearchCriteria> | undefined;
  private readonly freshForMs: number;
  /** Searches whose answer is being renewed: one renewal at a time each. */
  private readonly renewing = new Set<string>();

  constructor(
    private readonly catalogue: CatalogueRepository,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.freshForMs = config.catalogue.searchCacheSeconds * 1000;
    this.recentAnswers =
      this.freshForMs > 0
        ? new LRUCache({
            max: 2_000,
            ttl: 2 * this.freshForMs,
            // A search still running when 2,000 others have pushed its entry out answers those waiting
            // for it all the same (by default they would be refused with "evicted").
            ignoreFetchAbort: true,
            fetchMethod: (_key, _stale, { context }) => this.compute(context),
          })
        : undefined;
  }

  async search(request: SearchImagesRequest): Promise<SearchImagesResponse> {
    const keywords = request.search?.replace(/\s+/g, " ").trim().toLowerCase() || undefined;
    const sort = request.sort ?? (keywords ? "relevance" : "newest");
    const criteria: SearchCriteria = {
      keywords,
      freeOnly: request.filterFree ?? false,
      // Without keywords there is nothing to rank by: relevance means newest.
      sort: sort === "relevance" && !keywords ? "newest" : sort,
      limit: request.limit,
      offset: request.offset,
    };
    const started = performance.now();
    const key = JSON.stringify(criteria);
    const isCached = this.recentAnswers?.has(key) ?? false;
    const reused = await this.recentAnswers?.fetch(key, { context: criteria });
    if (reused && performance.now() - reused.computedAt > this.freshForMs) this.renew(key, criteria);
    const answer = reused?.answer ?? (await this.answer(criteria));
    this.metrics.searched(isCached, (performance.now() - started) / 1000);
    return answer;
  }

  /** Computes a fresh answer in the background; until it is in, the one there is keeps being used. */
  private renew(key: string, criteria: SearchCriteria): void {
    if (this.renewing.has(key)) return;
    this.renewing.add(key);
    this.compute(criteria)
      .then((renewed) => this.recentAnswers?.set(key, renewed))
      .catch((error: Error) => this.logger.warn(`search answer not renewed: ${error.message}`))
      .finally(() => this.renewing.delete(key));
  }

  private async compute(criteria: SearchCriteria): Promise<ReusedAnswer> {
    const computedAt = performance.now();
    return { answer: await this.answer(criteria), computedAt };
  }

  private async answer(criteria: SearchCriteria): Promise<SearchImagesResponse> {
    const { total, images } = await this.catalogue.search(criteria);
    return {
      filteredResults: total,
      images: images.map((image) => toImage(this.config.http.publicBaseUrl, image)),
    };
  }
}
