import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AppConfig } from "../common/config.js";
import { MetricsService } from "../metrics/metrics.service.js";
import type { CatalogueRepository, SearchCriteria } from "./catalogue.repository.js";
import { ImageSearchService } from "./image-search.service.js";

/**
 * The service over a catalogue whose every answer is new (its image id says which call it was), and whose
 * calls listed in `held` answer only when the test releases them. Its counters of search changes move
 * when the test says the catalogue or a popularity changed.
 */
function searchOver(options: {
  searchCacheSeconds: number;
  held: number[];
  searchCacheMegabytes?: number;
  /** Characters of each answer's title: how much of the cache's budget an answer takes. */
  titleLength?: number;
}) {
  const releases = new Map<number, () => void>();
  const held = new Map(
    options.held.map((call) => [call, new Promise<void>((resolve) => releases.set(call, resolve))]),
  );
  let calls = 0;
  const changes = { catalogue: 0, popularity: 0 };
  const catalogue = {
    searchChanges: vi.fn(async () => ({
      catalogue: String(changes.catalogue),
      popularity: String(changes.popularity),
    })),
    search: vi.fn(async (criteria: SearchCriteria) => {
      const call = ++calls;
      await held.get(call);
      const id = `${criteria.keywords ?? ""}#${call}`;
      const titles = { en: "t".repeat(options.titleLength ?? 0) };
      return { total: 1, images: [{ id, titles, free: false, validate: true }] };
    }),
  };
  const service = new ImageSearchService(catalogue as unknown as CatalogueRepository, new MetricsService(), {
    http: { publicBaseUrl: "http://localhost" },
    catalogue: {
      searchCacheSeconds: options.searchCacheSeconds,
      searchCacheMegabytes: options.searchCacheMegabytes ?? 64,
    },
  } as AppConfig);
  const release = (call: number) => releases.get(call)?.();
  const firstId = async (search: string, sort?: "popular") =>
    (await service.search({ search, limit: 20, offset: 0, ...(sort && { sort }) })).images[0]?.id;
  const change = (what: keyof typeof changes) => changes[what]++;
  return { service, catalogue, release, firstId, change };
}

/** Moves the test's clock on by `ms`, running the timers that fall due meanwhile. */
const pass = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** The value, or "still waiting" when it is not there once every pending promise has run. */
const atOnce = <T>(value: Promise<T>) =>
  Promise.race([value, new Promise<string>((resolve) => setImmediate(resolve, "still waiting"))]);

describe("ImageSearchService", () => {
  // Ages are read from the test's clock, which moves only when told: a loaded machine cannot age an answer
  // past a window the test means it to be in.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["performance", "setTimeout", "clearTimeout"] });
    // A process's clock is never at 0, which the cache would read as an answer without an expiry.
    vi.advanceTimersByTime(60_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers a search whose reused answer was pushed out by thousands of others while it ran", async () => {
    // 3,000 answers of about 1 KB each: three times the cache's budget.
    const options = { searchCacheSeconds: 10, held: [1], searchCacheMegabytes: 1, titleLength: 1000 };
    const { service, release } = searchOver(options);
    const held = service.search({ search: "word0", limit: 20, offset: 0 });
    for (let word = 1; word <= 3000; word++)
      await service.search({ search: `word${word}`, limit: 20, offset: 0 });
    release(1);
    const answer = await held;
    expect(answer.filteredResults).toBe(1);
    expect(answer.images[0]?.id).toBe("word0#1");
  });

  it("keeps the answers of a long tail of searches while they fit in its budget", async () => {
    // The mix of a real catalogue's users: thousands of distinct searches, most of them rare.
    const { service, catalogue } = searchOver({ searchCacheSeconds: 10, held: [], titleLength: 200 });
    const searchAll = async () => {
      for (let word = 0; word < 5000; word++)
        await service.search({ search: `word${word}`, limit: 20, offset: 0 });
    };
    await searchAll();
    await searchAll();
    expect(catalogue.search).toHaveBeenCalledTimes(5000);
  });

  it("renews a reused answer past its time without keeping that search waiting", async () => {
    // Answers are reused 0.2 s, and used while renewed up to 0.4 s.
    const { catalogue, release, firstId, change } = searchOver({ searchCacheSeconds: 0.2, held: [2] });
    expect(await firstId("fox")).toBe("fox#1");
    change("catalogue");
    await pass(250);
    // The renewal (call 2) is held: the search gets the answer there is, at once.
    expect(await atOnce(firstId("fox"))).toBe("fox#1");
    expect(await atOnce(firstId("fox"))).toBe("fox#1");
    expect(catalogue.search).toHaveBeenCalledTimes(2);
    release(2);
    await vi.waitFor(async () => expect(await firstId("fox")).toBe("fox#2"));
    expect(catalogue.search).toHaveBeenCalledTimes(2);
  });

  it("does not use an answer twice its reuse time old: that search waits for a fresh one", async () => {
    const { catalogue, firstId } = searchOver({ searchCacheSeconds: 0.2, held: [] });
    expect(await firstId("fox")).toBe("fox#1");
    await pass(450);
    expect(await firstId("fox")).toBe("fox#2");
    expect(catalogue.search).toHaveBeenCalledTimes(2);
  });

  it("keeps an answer past its time while nothing that could change it has changed", async () => {
    // Reused 0.5 s unchecked: each search below comes past that, and well before twice that.
    const { catalogue, firstId } = searchOver({ searchCacheSeconds: 0.5, held: [] });
    expect(await firstId("fox")).toBe("fox#1");
    for (let check = 0; check < 3; check++) {
      await pass(600);
      expect(await firstId("fox")).toBe("fox#1");
    }
    // Checked in the background each time: the answer was never older than twice its time unchecked.
    await vi.waitFor(() => expect(catalogue.searchChanges).toHaveBeenCalledTimes(4));
    expect(await firstId("fox")).toBe("fox#1");
    expect(catalogue.search).toHaveBeenCalledTimes(1);
  });

  it("renews only the popular sort's answers when popularity alone changed", async () => {
    const { catalogue, firstId, change } = searchOver({ searchCacheSeconds: 0.2, held: [] });
    expect(await firstId("fox")).toBe("fox#1");
    expect(await firstId("fox", "popular")).toBe("fox#2");
    change("popularity");
    await pass(250);
    await firstId("fox");
    await firstId("fox", "popular");
    await vi.waitFor(async () => expect(await firstId("fox", "popular")).toBe("fox#3"));
    expect(await firstId("fox")).toBe("fox#1");
    expect(catalogue.search).toHaveBeenCalledTimes(3);
  });
});
