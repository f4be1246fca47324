import { describe, expect, it, vi } from "vitest";
import type { AppConfig } from "../common/config.js";
import { MetricsService } from "../metrics/metrics.service.js";
import type { CatalogueRepository, SearchCriteria } from "./catalogue.repository.js";
import { ImageSearchService } from "./image-search.service.js";

/** The service over a catalogue whose first search answers when the test says; the others at once. */
function searchWithHeldFirstAnswer() {
  let releaseFirst: () => void = () => undefined;
  const first = new Promise<void>((resolve) => {
    releaseFirst = resolve;
  });
  let calls = 0;
  const catalogue = {
    search: vi.fn(async (criteria: SearchCriteria) => {
      if (calls++ === 0) await first;
      return { total: 1, images: [{ id: criteria.keywords ?? "", titles: {}, free: false, validate: true }] };
    }),
  };
  const service = new ImageSearchService(catalogue as unknown as CatalogueRepository, new MetricsService(), {
    http: { publicBaseUrl: "http://localhost" },
    catalogue: { searchCacheSeconds: 10 },
  } as AppConfig);
  return { service, releaseFirst };
}

describe("ImageSearchService", () => {
  it("answers a search whose reused answer was pushed out by thousands of others while it ran", async () => {
    const { service, releaseFirst } = searchWithHeldFirstAnswer();
    const held = service.search({ search: "word0", limit: 20, offset: 0 });
    for (let word = 1; word <= 3000; word++)
      await service.search({ search: `word${word}`, limit: 20, offset: 0 });
    releaseFirst();
    const answer = await held;
    expect(answer.filteredResults).toBe(1);
    expect(answer.images[0]?.id).toBe("word0");
  });
});
