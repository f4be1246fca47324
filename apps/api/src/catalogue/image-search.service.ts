import type { SearchImagesRequest, SearchImagesResponse } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { MetricsService } from "../metrics/metrics.service.js";
import { CatalogueRepository, type SearchCriteria } from "./catalogue.repository.js";
import { toImage } from "./display-url.js";

@Injectable()
export class ImageSearchService {
  /**
   * Many people run the same few searches: each answer is reused for a few seconds, and identical searches
   * arriving together share one query instead of each costing the database the same work. A new image or
   * a purchase (popularity) shows in such a search once its answer expires.
   */
  private readonly recentAnswers: LRUCache<string, SearchImagesResponse, SearchCriteria> | undefined;

  constructor(
    private readonly catalogue: CatalogueRepository,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const ttlSeconds = config.catalogue.searchCacheSeconds;
    this.recentAnswers =
      ttlSeconds > 0
        ? new LRUCache({
            max: 2_000,
            ttl: ttlSeconds * 1000,
            // A search still running when 2,000 others have pushed its entry out answers those waiting
            // for it all the same (by default they would be refused with "evicted").
            ignoreFetchAbort: true,
            fetchMethod: (_key, _stale, { context }) => this.answer(context),
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
    const answer =
      (await this.recentAnswers?.fetch(key, { context: criteria })) ?? (await this.answer(criteria));
    this.metrics.searched(isCached, (performance.now() - started) / 1000);
    return answer;
  }

  private async answer(criteria: SearchCriteria): Promise<SearchImagesResponse> {
    const { total, images } = await this.catalogue.search(criteria);
    return {
      filteredResults: total,
      images: images.map((image) => toImage(this.config.http.publicBaseUrl, image)),
    };
  }
}
