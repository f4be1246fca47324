import type { SearchImagesRequest, SearchImagesResponse } from "@imagehub/domain";
import { Inject, Injectable, Logger } from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { builtToResponseSchema } from "../common/operation.interceptor.js";
import { MetricsService } from "../metrics/metrics.service.js";
import { CatalogueRepository, type SearchChanges, type SearchCriteria } from "./catalogue.repository.js";
import { toImage } from "./display-url.js";

/**
 * An answer kept for reuse: when the database was asked for it and when it was last found to hold
 * (performance.now()), and where the counters of search changes stood before it was computed.
 */
interface ReusedAnswer {
  answer: SearchImagesResponse;
  computedAt: number;
  checkedAt: number;
  changes: SearchChanges;
  /** The answer's size as JSON, which the cache's budget counts. */
  bytes: number;
}

/**
 * However still the counters, an answer is computed again past this age: a change that moved them before
 * the answer's statements ran but committed after, unseen by both, is then not kept longer.
 */
const LONGEST_REUSE_MS = 60_000;

@Injectable()
export class ImageSearchService {
  private readonly logger = new Logger(ImageSearchService.name);

  /**
   * Many people run the same few searches: each answer is reused for `searchCacheSeconds`, and identical
   * searches arriving together share one query instead of each costing the database the same work. Past
   * that, the next one gets the answer at once while it is checked for those after it, so that a popular
   * search never waits for its own renewal: when nothing that could change it has changed since (the
   * counters of search changes stand where they stood), it holds for another `searchCacheSeconds`,
   * otherwise a fresh one is computed. An answer not checked for twice that long is not used any more. A
   * new image or a purchase (popularity) shows in such a search once its answer has been renewed.
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
            // Bounded by the answers' size, not their number: a catalogue's searches follow a long tail, and
            // one that comes back after thousands of others should still find its answer.
            maxSize: config.catalogue.searchCacheMegabytes * 1024 * 1024,
            sizeCalculation: (reused, key) => reused.bytes + key.length,
            ttl: 2 * this.freshForMs,
            // The clock the service reads, looked up at each call (the cache's default is the one found at
            // import): ages and expiries move together, also under a test's clock.
            perf: { now: () => performance.now() },
            // A search still running when others have pushed its entry out answers those waiting
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
    if (reused && performance.now() - reused.checkedAt > this.freshForMs) this.renew(key, criteria, reused);
    const answer = reused?.answer ?? (await this.answer(criteria));
    this.metrics.searched(isCached, (performance.now() - started) / 1000);
    return answer;
  }

  /** Checks or renews an answer in the background; until that is done, the one there is keeps being used. */
  private renew(key: string, criteria: SearchCriteria, reused: ReusedAnswer): void {
    if (this.renewing.has(key)) return;
    this.renewing.add(key);
    this.renewed(criteria, reused)
      .then((renewed) => this.recentAnswers?.set(key, renewed))
      .catch((error: Error) => this.logger.warn(`search answer not renewed: ${error.message}`))
      .finally(() => this.renewing.delete(key));
  }

  /** The answer again when nothing that could change it has changed since it was computed, else a fresh one. */
  private async renewed(criteria: SearchCriteria, reused: ReusedAnswer): Promise<ReusedAnswer> {
    const changes = await this.catalogue.searchChanges();
    const holds =
      changes.catalogue === reused.changes.catalogue &&
      (criteria.sort !== "popular" || changes.popularity === reused.changes.popularity) &&
      performance.now() - reused.computedAt < LONGEST_REUSE_MS;
    return holds ? { ...reused, checkedAt: performance.now() } : this.compute(criteria, changes);
  }

  /** `changes`, when known, were read just before: read before the answer, a change made meanwhile shows. */
  private async compute(criteria: SearchCriteria, changes?: SearchChanges): Promise<ReusedAnswer> {
    const computedAt = performance.now();
    const before = changes ?? (await this.catalogue.searchChanges());
    const answer = await this.answer(criteria);
    const bytes = JSON.stringify(answer).length;
    return { answer, computedAt, checkedAt: computedAt, changes: before, bytes };
  }

  private async answer(criteria: SearchCriteria): Promise<SearchImagesResponse> {
    const { total, images } = await this.catalogue.search(criteria);
    return builtToResponseSchema({
      filteredResults: total,
      images: images.map((image) => toImage(this.config.http.publicBaseUrl, image)),
    });
  }
}
