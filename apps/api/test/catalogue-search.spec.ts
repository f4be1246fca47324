import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createImage } from "../../../tests/support/images.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { seedCatalogue } from "../src/catalogue/seed/catalogue-seeder.js";

describe("POST /v1/images/search", () => {
  let api: TestApi;
  let apiKey: string;
  const ids: Record<string, string> = {};

  async function search(body: Record<string, unknown>) {
    const response = await api.request("/v1/images/search", { apiKey, method: "POST", json: body });
    return { status: response.status, body: await readJson(response) };
  }

  beforeAll(async () => {
    // Rows are written straight into the database between searches: answers must not be reused here.
    api = await startTestApi({
      env: { PUBLIC_BASE_URL: "https://images.example.test", SEARCH_CACHE_SECONDS: "0" },
    });
    ({ apiKey } = await api.createAccount());
    const prisma = api.resources.database.prisma;
    const day = 24 * 3600_000;
    const fixtures = {
      foxInSnow: {
        en: "A red fox in the snow",
        fr: "Un renard roux dans une forêt enneigée",
        tags: ["fox"],
        popularity: 5,
      },
      foxOnly: { en: "A red fox sleeping", fr: "Un renard roux endormi", tags: ["fox"], popularity: 50 },
      snowOnly: {
        en: "Snowy mountains at dawn",
        fr: "Montagnes enneigées à l'aube",
        tags: ["snow"],
        free: true,
      },
      elephant: { en: "An elephant by a river", fr: "Un éléphant au bord d'une rivière", tags: ["elephant"] },
      cafe: { en: "Coffee on a terrace", fr: "Un café en terrasse à Paris", tags: ["coffee"], free: true },
    };
    let age = Object.keys(fixtures).length;
    for (const [name, fixture] of Object.entries(fixtures)) {
      age -= 1;
      ids[name] = (await createImage(prisma, { ...fixture, createdAt: new Date(Date.now() - age * day) })).id;
    }
  });
  afterAll(() => api.close());

  it("ranks the image holding both words above those holding one", async () => {
    const { status, body } = await search({ search: "fox snow" });
    expect(status).toBe(200);
    expect(body.images[0].id).toBe(ids.foxInSnow);
    expect(body.images.map((image: { id: string }) => image.id).sort()).toEqual(
      [ids.foxInSnow, ids.foxOnly, ids.snowOnly].sort(),
    );
    expect(body.filteredResults).toBe(3);
  });

  it("answers a sentence, ranked by relevance and in every sort", async () => {
    const sentence = "a red fox sitting in the snow at sunset near an old wooden cabin in the forest";
    const ranked = await search({ search: sentence });
    expect(ranked.status).toBe(200);
    expect(ranked.body.images[0].id).toBe(ids.foxInSnow);
    expect(ranked.body.filteredResults).toBeGreaterThanOrEqual(3);
    for (const sort of ["newest", "oldest", "popular"]) {
      const sorted = await search({ search: sentence, sort });
      expect(sorted.status).toBe(200);
      expect(sorted.body.filteredResults).toBe(ranked.body.filteredResults);
    }
  });

  it("answers 64 words and refuses a 65th with 400 naming the field", async () => {
    const words = Array.from({ length: 64 }, (_, index) => `word${index}`);
    expect((await search({ search: [...words.slice(1), "fox"].join(" ") })).body.filteredResults).toBe(2);
    const refused = await search({ search: [...words, "fox"].join(" ") });
    expect(refused.status).toBe(400);
    expect(refused.body.message[0]).toMatch(/^search: must have at most 64 words/);
  });

  it("stems words and folds accents", async () => {
    expect((await search({ search: "foxes" })).body.filteredResults).toBe(2);
    expect((await search({ search: "elephant" })).body.images[0].id).toBe(ids.elephant);
    expect((await search({ search: "foret enneigee" })).body.images[0].id).toBe(ids.foxInSnow);
  });

  it("finds French titles by French words", async () => {
    const { body } = await search({ search: "renards" });
    expect(body.images.map((image: { id: string }) => image.id).sort()).toEqual(
      [ids.foxInSnow, ids.foxOnly].sort(),
    );
    expect((await search({ search: "rivière" })).body.images[0].id).toBe(ids.elephant);
  });

  it("still finds an image when a word is misspelled", async () => {
    const { body } = await search({ search: "elefant" });
    expect(body.images[0]?.id).toBe(ids.elephant);
  });

  it("answers images with absolute display links and the spec's fields", async () => {
    const { body } = await search({ search: "coffee" });
    expect(body.images).toEqual([
      {
        id: ids.cafe,
        url: `https://images.example.test/v1/images/preview/${ids.cafe}.jpg`,
        urlFull: `https://images.example.test/v1/images/full/${ids.cafe}.jpg`,
        validate: true,
        free: true,
        titles: { en: "Coffee on a terrace", fr: "Un café en terrasse à Paris" },
      },
    ]);
  });

  it("filters free images", async () => {
    const { body } = await search({ filterFree: true });
    expect(body.images.map((image: { id: string }) => image.id).sort()).toEqual(
      [ids.snowOnly, ids.cafe].sort(),
    );
  });

  it("sorts newest first without keywords, and by the sort asked for", async () => {
    const order = (images: { id: string }[]) => images.map((image) => image.id);
    const all = [ids.foxInSnow, ids.foxOnly, ids.snowOnly, ids.elephant, ids.cafe];
    expect(order((await search({})).body.images)).toEqual([...all].reverse());
    expect(order((await search({ sort: "oldest" })).body.images)).toEqual(all);
    expect(order((await search({ sort: "popular", search: "fox" })).body.images)).toEqual([
      ids.foxOnly,
      ids.foxInSnow,
    ]);
    expect(order((await search({ sort: "newest", search: "fox" })).body.images)).toEqual([
      ids.foxOnly,
      ids.foxInSnow,
    ]);
  });

  it("pages with limit and offset and counts every match", async () => {
    const first = await search({ limit: 2, offset: 0 });
    const second = await search({ limit: 2, offset: 2 });
    expect(first.body.filteredResults).toBe(5);
    expect(first.body.images).toHaveLength(2);
    expect(second.body.images[0].id).not.toBe(first.body.images[1].id);
    const pastTheEnd = await search({ limit: 2, offset: 10 });
    expect(pastTheEnd.body).toEqual({ filteredResults: 5, images: [] });
  });

  it.each([
    [{ limit: 101 }, /^limit: /],
    [{ limit: 0 }, /^limit: /],
    [{ offset: -1 }, /^offset: /],
    [{ sort: "random" }, /^sort: /],
    [{ filterFree: "yes" }, /^filterFree: /],
  ])("refuses %j with 400 naming the field", async (body, message) => {
    const response = await search(body);
    expect(response.status).toBe(400);
    expect(response.body.message[0]).toMatch(message);
  });

  it("counts every match exactly, however many", async () => {
    const prisma = api.resources.database.prisma;
    await seedCatalogue(prisma, { count: 1500, seed: 7 });
    const { body } = await search({ limit: 1 });
    expect(body.filteredResults).toBe(await prisma.image.count({ where: { source: "catalogue" } }));
    const [forest] = await prisma.$queryRaw<{ count: number }[]>`
      SELECT count(*)::int AS count FROM images WHERE source = 'catalogue' AND search_document @@ 'forest'::tsquery`;
    expect(forest?.count).toBeGreaterThan(100);
    expect((await search({ search: "forest", limit: 1 })).body.filteredResults).toBe(forest?.count);
    const rare = await search({ search: "elephant", limit: 100 });
    expect(rare.body.filteredResults).toBe(rare.body.images.length);
  });

  it("counts once an image holding a word under both its English and its French stem", async () => {
    const prisma = api.resources.database.prisma;
    await prisma.image.createMany({
      data: Array.from({ length: 1100 }, (_, index) => ({
        titles: { en: `A sleeping animal ${index}`, fr: `Un animal endormi ${index}` },
        tags: [],
        price: 1,
        width: 768,
        height: 512,
        seed: index,
      })),
    });
    // "animal" is "anim" in English and "animal" in French: two terms, each held by every one of them.
    const [stems] = await prisma.$queryRaw<{ terms: number; holding: number; each: number }[]>`
      SELECT (SELECT count(*)::int FROM search_terms WHERE term IN ('anim', 'animal')) AS terms,
             (SELECT count(*)::int FROM images
              WHERE source = 'catalogue' AND search_document @@ 'anim | animal'::tsquery) AS holding,
             (SELECT max(documents)::int FROM search_terms WHERE term IN ('anim', 'animal')) AS each`;
    expect(stems?.terms).toBe(2);
    expect(stems?.each).toBeGreaterThan(1000);
    const { body } = await search({ search: "animal", limit: 1 });
    expect(body.filteredResults).toBe(stems?.holding);
  });
});

describe("POST /v1/images/search answer reuse", () => {
  let api: TestApi;
  let apiKey: string;
  const logLines: string[] = [];

  async function search(body: Record<string, unknown>) {
    const response = await api.request("/v1/images/search", { apiKey, method: "POST", json: body });
    return (await readJson(response)) as { filteredResults: number; images: { id: string }[] };
  }
  const searchStatements = () => logLines.filter((line) => line.includes("search_terms")).length;

  // Answers age by the test's clock (the service reads performance.now()), which moves only when told: on a
  // loaded machine, real time could age an answer between two searches meant to share it.
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    // A process's clock is never at 0, which the cache would read as an answer without an expiry.
    vi.advanceTimersByTime(60_000);
    api = await startTestApi({
      env: { SEARCH_CACHE_SECONDS: "1", LOG_LEVEL: "trace" },
      logDestination: { write: (line: string) => void logLines.push(line) },
    });
    ({ apiKey } = await api.createAccount());
    await createImage(api.resources.database.prisma, { en: "A lighthouse on a cliff", fr: "Un phare" });
  });
  afterAll(async () => {
    await api.close();
    vi.useRealTimers();
  });

  it("sends a reused answer as JSON, the same as the first time", async () => {
    const send = () =>
      api.request("/v1/images/search", { apiKey, method: "POST", json: { search: "phare" } });
    const [first, again] = [await send(), await send()];
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(first.headers.get("content-type")).toContain("application/json");
    const text = await first.text();
    expect(await again.text()).toBe(text);
    expect(JSON.parse(text).images).toHaveLength(1);
  });

  it("runs identical searches arriving together as one query", async () => {
    const before = searchStatements();
    await search({ search: "cliff" });
    const perSearch = searchStatements() - before;
    expect(perSearch).toBeGreaterThan(0);
    const answers = await Promise.all(Array.from({ length: 10 }, () => search({ search: "Lighthouse " })));
    expect(searchStatements() - before).toBe(2 * perSearch);
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
  });

  /** The statements a search sends that read the index or the images (jobs write to the log too). */
  async function statementsOf(body: Record<string, unknown>) {
    const before = logLines.length;
    const found = await search(body);
    const statements = logLines
      .slice(before)
      .filter((line) => line.includes('"msg":"sql"') && /search_terms|search_blocks|FROM images/.test(line));
    return { found, statements };
  }
  const readsPostings = (statement: string) => statement.includes("search_blocks");

  it("reads a term's postings once, then only checks their version while they stand", async () => {
    await createImage(api.resources.database.prisma, { en: "A lantern on a quay", fr: "Une lanterne" });
    const first = await statementsOf({ search: "lantern quay" });
    expect(first.statements.filter(readsPostings)).toHaveLength(1);
    // Another page of the same words: their terms and versions are read, not their postings.
    const second = await statementsOf({ search: "lantern quay", offset: 0, limit: 5 });
    expect(second.found.filteredResults).toBe(1);
    expect(second.statements.filter(readsPostings)).toHaveLength(0);
  });

  it("reads a term's postings again when they changed since they were kept", async () => {
    const prisma = api.resources.database.prisma;
    await createImage(prisma, { en: "A windmill by a canal at dawn", fr: "Un moulin" });
    const before = await search({ search: "windmill canal dawn", limit: 3 });
    expect(before.images).toHaveLength(1);
    const added = await createImage(prisma, { en: "Windmill", fr: "Moulin", tags: ["windmill"] });
    const after = await statementsOf({ search: "windmill canal dawn", limit: 4 });
    expect(after.found.images.map((image) => image.id)).toContain(added.id);
    expect(after.found.filteredResults).toBe(2);
    expect(after.statements.filter(readsPostings)).toHaveLength(1);
  });

  it("checks an answer past its time instead of computing it again while the catalogue is unchanged", async () => {
    const checks = () => logLines.filter((line) => line.includes("search_catalogue_changes")).length;
    // A search of its own: none before it has an answer being renewed meanwhile.
    const unchanged = { search: "cliff", limit: 3 };
    await search(unchanged);
    const [statementsBefore, checksBefore] = [searchStatements(), checks()];
    vi.advanceTimersByTime(1_100);
    await search(unchanged);
    await vi.waitFor(() => expect(checks()).toBeGreaterThan(checksBefore));
    await search(unchanged);
    expect(searchStatements()).toBe(statementsBefore);
  });

  it("shows a new image once the reused answer has been renewed", async () => {
    const prisma = api.resources.database.prisma;
    expect((await search({ search: "harbour" })).filteredResults).toBe(0);
    await createImage(prisma, { en: "Boats in a harbour", fr: "Des bateaux au port" });
    expect((await search({ search: "harbour" })).filteredResults).toBe(0);
    // Past SEARCH_CACHE_SECONDS.
    vi.advanceTimersByTime(1_100);
    // Past its time, the answer there is comes at once, and a fresh one is computed for the next searches.
    expect((await search({ search: "harbour" })).filteredResults).toBe(0);
    await vi.waitFor(async () => expect((await search({ search: "harbour" })).filteredResults).toBe(1));
  });

  it("shows an image's new title once the reused answer has been renewed, even when its words are the same", async () => {
    const prisma = api.resources.database.prisma;
    const image = await createImage(prisma, { en: "a quiet orchard in bloom", fr: "un verger en fleurs" });
    const titleOf = async () => JSON.stringify((await search({ search: "orchard bloom" })).images);
    expect(await titleOf()).toContain("a quiet orchard in bloom");
    // The same words, so the same index: only what the answer shows has changed.
    await prisma.image.update({
      where: { id: image.id },
      data: { titles: { en: "A Quiet Orchard, in Bloom!", fr: "Un verger en fleurs" } },
    });
    vi.advanceTimersByTime(1_100);
    await vi.waitFor(async () => expect(await titleOf()).toContain("A Quiet Orchard, in Bloom!"));
  });
});
