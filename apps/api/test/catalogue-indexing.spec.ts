import { type Database, openDatabase } from "@imagehub/db";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createImage } from "../../../tests/support/images.js";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { CatalogueRepository } from "../src/catalogue/catalogue.repository.js";
import { flushSearchIndex, seedCatalogue } from "../src/catalogue/seed/catalogue-seeder.js";
import type { AppConfig } from "../src/common/config.js";

/**
 * The search index of a catalogue written in bulk: a seed defers it and builds it once at the end, and the
 * result is what indexing each image on its own gives.
 */
describe("catalogue search index", () => {
  let testDatabase: TestDatabase;
  let database: Database;

  const rows = async <Row>(sql: string, ...values: unknown[]) =>
    (await database.prisma.$queryRawUnsafe<Row[]>(sql, ...values)) as Row[];

  /** Inserts a catalogue image the way a seed batch does: with the index deferred in its transaction. */
  async function insertDeferred(title: string): Promise<string> {
    const [, inserted] = await database.prisma.$transaction([
      database.prisma.$executeRaw`SELECT set_config('imagehub.search_index', 'deferred', true)`,
      database.prisma.$queryRaw<{ id: string }[]>`
        INSERT INTO images (id, titles, tags, width, height)
        VALUES (gen_random_uuid(), jsonb_build_object('en', ${title}::text, 'fr', ${title}::text), '{}', 768, 512)
        RETURNING id`,
    ]);
    return inserted[0]?.id as string;
  }

  const postingsOf = async (imageId: string) =>
    (
      await rows<{ count: number }>(
        "SELECT count(*)::int AS count FROM search_postings WHERE image_id = $1::uuid",
        imageId,
      )
    )[0]?.count;

  const isPending = async (imageId: string) =>
    (await rows("SELECT 1 FROM search_index_pending WHERE image_id = $1::uuid", imageId)).length > 0;

  /**
   * Every term's counts against the postings themselves, the catalogue's size against its images, and the
   * counts of the pairs of terms at each pair of weights against the images' postings (one per image).
   */
  async function expectIndexExact(): Promise<void> {
    const miscounted = await rows<{ term_a: number; term_b: number }>(`
      SELECT term_a, term_b, impact_a, impact_b FROM search_term_pairs s
      FULL JOIN (
        SELECT x.term_a, x.term_b, x.impact_a, x.impact_b, count(*)::int AS documents,
               (count(*) FILTER (WHERE p.free))::int AS free_documents
        FROM search_postings p CROSS JOIN LATERAL search_term_pairs_of(p.terms, p.impacts) x
        WHERE p.term_id = p.terms[1]
        GROUP BY 1, 2, 3, 4) r USING (term_a, term_b, impact_a, impact_b)
      WHERE (coalesce(s.documents, 0), coalesce(s.free_documents, 0))
            <> (coalesce(r.documents, 0), coalesce(r.free_documents, 0))`);
    expect(miscounted).toEqual([]);
    const wrong = await rows<{ term: string }>(`
      SELECT t.term FROM search_terms t
      LEFT JOIN (SELECT term_id, count(*)::int AS documents, (count(*) FILTER (WHERE free))::int AS free_documents
                 FROM search_postings GROUP BY term_id) p ON p.term_id = t.id
      WHERE (t.documents, t.free_documents) <> (coalesce(p.documents, 0), coalesce(p.free_documents, 0))`);
    expect(wrong).toEqual([]);
    const [size] = await rows<{ documents: number; images: number }>(`
      SELECT (SELECT sum(documents)::int FROM search_catalogue_size) AS documents,
             (SELECT count(DISTINCT image_id)::int FROM search_postings) AS images`);
    expect(size?.documents).toBe(size?.images);
  }

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    database = await openDatabase({ url: testDatabase.url, poolSize: 2 });
  });
  afterAll(async () => {
    await database.close();
    await testDatabase.drop();
  });
  beforeEach(async () => {
    await flushSearchIndex(database.prisma);
  });

  const searchIndexes = () =>
    rows<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('search_postings', 'search_term_pairs') ORDER BY indexname",
    );

  it("indexes a seed at its end: every word of every image, counted, with the postings' indexes rebuilt", async () => {
    const indexesBefore = await searchIndexes();
    await seedCatalogue(database.prisma, { count: 600, seed: 5, batchSize: 250 });
    expect(await rows("SELECT image_id FROM search_index_pending")).toEqual([]);
    const [coverage] = await rows<{ postings: number; lexemes: number; images: number }>(`
      SELECT (SELECT count(*)::int FROM search_postings) AS postings,
             (SELECT sum(length(search_document))::int FROM images WHERE source = 'catalogue') AS lexemes,
             (SELECT count(*)::int FROM images WHERE source = 'catalogue') AS images`);
    expect(coverage?.images).toBe(600);
    expect(coverage?.postings).toBe(coverage?.lexemes);
    // Each posting carries all the terms of its image with their weights, as ranking reads them.
    const [mismatched] = await rows<{ count: number }>(`
      SELECT count(*)::int AS count FROM search_postings p JOIN images i ON i.id = p.image_id
      WHERE cardinality(p.terms) <> length(i.search_document) OR cardinality(p.impacts) <> cardinality(p.terms)
         OR NOT p.terms @> ARRAY[p.term_id] OR p.impacts[array_position(p.terms, p.term_id)] <> p.impact`);
    expect(mismatched?.count).toBe(0);
    await expectIndexExact();
    expect(await searchIndexes()).toEqual(indexesBefore);
    expect(indexesBefore.map((index) => index.indexname)).toContain("search_term_pairs_pkey");
  });

  it("writes a seed batch however long it takes, as on a loaded machine", async () => {
    // Longer than the 5 s a client-side transaction may last by default.
    await database.prisma.$executeRawUnsafe(`
      CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(5.5); RETURN NULL; END $$`);
    await database.prisma.$executeRawUnsafe(
      "CREATE TRIGGER slow_insert BEFORE INSERT ON images FOR EACH STATEMENT EXECUTE FUNCTION slow_insert()",
    );
    try {
      expect(await seedCatalogue(database.prisma, { count: 3, seed: 6 })).toBe(3);
    } finally {
      await database.prisma.$executeRawUnsafe("DROP TRIGGER slow_insert ON images");
      await database.prisma.$executeRawUnsafe("DROP FUNCTION slow_insert()");
    }
  });

  it("keeps an image written with the index deferred out of search until the flush", async () => {
    const id = await insertDeferred("A heron in the reeds");
    expect(await postingsOf(id)).toBe(0);
    expect(await isPending(id)).toBe(true);
    expect(await flushSearchIndex(database.prisma)).toBe(1);
    expect(await postingsOf(id)).toBeGreaterThan(0);
    expect(await isPending(id)).toBe(false);
    await expectIndexExact();
  });

  it("indexes a pending image as it is at the flush, when it changed meanwhile", async () => {
    const id = await insertDeferred("A heron in the reeds");
    await database.prisma.image.update({
      where: { id },
      data: { titles: { en: "A kingfisher", fr: "Martin" } },
    });
    await flushSearchIndex(database.prisma);
    const terms = await rows<{ term: string }>(
      "SELECT t.term FROM search_postings p JOIN search_terms t ON t.id = p.term_id WHERE p.image_id = $1::uuid",
      id,
    );
    expect(terms.map((row) => row.term)).toContain("kingfish");
    expect(terms.map((row) => row.term)).not.toContain("heron");
    await expectIndexExact();
  });

  it("forgets a pending image deleted before the flush", async () => {
    const id = await insertDeferred("A heron in the reeds");
    await database.prisma.image.delete({ where: { id } });
    expect(await isPending(id)).toBe(false);
    expect(await flushSearchIndex(database.prisma)).toBe(0);
    await expectIndexExact();
  });

  it("still indexes an image added outside a seed at once, and follows its changes", async () => {
    const image = await createImage(database.prisma, { en: "A heron at dawn" });
    expect(await postingsOf(image.id)).toBeGreaterThan(0);
    expect(await isPending(image.id)).toBe(false);
    await database.prisma.image.update({
      where: { id: image.id },
      data: { createdAt: new Date("2026-01-02T03:04:05.678Z"), popularity: 7 },
    });
    await expectIndexExact();
    await database.prisma.image.update({ where: { id: image.id }, data: { free: true, tags: ["bird"] } });
    await expectIndexExact();
    await database.prisma.image.delete({ where: { id: image.id } });
    expect(await postingsOf(image.id)).toBe(0);
    await expectIndexExact();
  });
  it("moves the counters of search changes on what can change an answer, and only then", async () => {
    const catalogue = new CatalogueRepository(database.prisma, database, {} as AppConfig);
    let last = await catalogue.searchChanges();
    /** Which counters moved since the last call. */
    const moved = async () => {
      const now = await catalogue.searchChanges();
      const which = (["catalogue", "popularity"] as const).filter(
        (counter) => now[counter] !== last[counter],
      );
      last = now;
      return which;
    };
    const image = await createImage(database.prisma, { en: "A kingfisher on a branch" });
    expect(await moved()).toEqual(["catalogue"]);
    await database.prisma.image.update({ where: { id: image.id }, data: { popularity: 3 } });
    expect(await moved()).toEqual(["popularity"]);
    await database.prisma.image.update({ where: { id: image.id }, data: { price: 4, width: 1024 } });
    expect(await moved()).toEqual([]);
    await database.prisma.image.update({
      where: { id: image.id },
      data: { createdAt: new Date("2026-02-03") },
    });
    expect(await moved()).toEqual(["catalogue"]);
    await database.prisma.image.update({ where: { id: image.id }, data: { tags: ["bird"] } });
    expect(await moved()).toEqual(["catalogue"]);
    const deferred = await insertDeferred("A kingfisher diving");
    expect(await moved()).toEqual(["catalogue"]);
    await flushSearchIndex(database.prisma);
    expect(await moved()).toEqual(["catalogue"]);
    await database.prisma.image.deleteMany({ where: { id: { in: [image.id, deferred] } } });
    expect(await moved()).toEqual(["catalogue"]);
  });

  it("lets two transactions add catalogue images at once, neither waiting for the other, and counts both", async () => {
    const writers = [new pg.Client(testDatabase.url), new pg.Client(testDatabase.url)];
    try {
      for (const writer of writers) {
        await writer.connect();
        await writer.query("BEGIN");
        // Waiting on the other's row lock fails at once instead of hanging until it commits.
        await writer.query("SET LOCAL lock_timeout = '2s'");
      }
      for (const [index, writer] of writers.entries()) {
        const word = index === 0 ? "quokka" : "narwhal";
        await writer.query(
          `INSERT INTO images (id, titles, tags, free, width, height)
           VALUES (gen_random_uuid(), jsonb_build_object('en', $1::text, 'fr', $1::text), '{}', $2, 768, 512)`,
          [word, index === 0],
        );
      }
      for (const writer of writers) await writer.query("COMMIT");
    } finally {
      for (const writer of writers) await writer.end();
    }
    await expectIndexExact();
  });

  it("keeps the catalogue's size exact through concurrent adds and deletes", async () => {
    const [before] = await rows<{ count: number }>(
      "SELECT count(*)::int AS count FROM images WHERE source = 'catalogue'",
    );
    const writers = Array.from({ length: 4 }, () => new pg.Client(testDatabase.url));
    try {
      await Promise.all(writers.map((writer) => writer.connect()));
      await Promise.all(
        writers.map(async (writer, index) => {
          for (let round = 0; round < 10; round += 1) {
            const { rows: added } = await writer.query<{ id: string }>(
              `INSERT INTO images (id, titles, tags, free, width, height)
               VALUES (gen_random_uuid(), jsonb_build_object('en', $1::text), '{}', $2, 768, 512) RETURNING id`,
              [`writer${index} round${round}`, round % 2 === 0],
            );
            if (round % 3 === 0) await writer.query("DELETE FROM images WHERE id = $1::uuid", [added[0]?.id]);
          }
        }),
      );
    } finally {
      await Promise.all(writers.map((writer) => writer.end()));
    }
    const [size] = await rows<{
      documents: number;
      free_documents: number;
      images: number;
      free_images: number;
    }>(`
      SELECT (SELECT sum(documents)::int FROM search_catalogue_size) AS documents,
             (SELECT sum(free_documents)::int FROM search_catalogue_size) AS free_documents,
             (SELECT count(*)::int FROM images WHERE source = 'catalogue') AS images,
             (SELECT count(*)::int FROM images WHERE source = 'catalogue' AND free) AS free_images`);
    expect(size?.images).toBe((before?.count ?? 0) + 4 * 6);
    expect(size?.documents).toBe(size?.images);
    expect(size?.free_documents).toBe(size?.free_images);
    await expectIndexExact();
  });
});
