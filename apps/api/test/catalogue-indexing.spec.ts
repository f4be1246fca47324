import { type Database, openDatabase } from "@imagehub/db";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createImage, insertDeferredImage } from "../../../tests/support/images.js";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { until } from "../../../tests/support/until.js";
import { CatalogueRepository } from "../src/catalogue/catalogue.repository.js";
import { compactSearchIndex, flushSearchIndex } from "../src/catalogue/search/index-writer.js";
import { seedCatalogue } from "../src/catalogue/seed/catalogue-seeder.js";
import type { AppConfig } from "../src/common/config.js";

/**
 * The search index (the inverted index of the search_blocks migration) against the catalogue it indexes, through
 * bulk loads, single writes, changes, deletes, concurrent writers and compaction.
 */
describe("catalogue search index", () => {
  let testDatabase: TestDatabase;
  let database: Database;

  const rows = async <Row>(sql: string, ...values: unknown[]) =>
    (await database.prisma.$queryRawUnsafe<Row[]>(sql, ...values)) as Row[];

  const insertDeferred = (title: string) => insertDeferredImage(database.prisma, title);

  /** How many postings the image has in the blocks. */
  const postingsOf = async (imageId: string) =>
    (
      await rows<{ count: number }>(
        `SELECT count(*)::int AS count FROM search_documents s
         JOIN search_blocks b ON s.document BETWEEN b.first_document AND b.last_document
         WHERE s.image_id = $1::uuid AND s.document = ANY(search_block_documents(b.documents))`,
        imageId,
      )
    )[0]?.count;

  const isPending = async (imageId: string) =>
    (await rows("SELECT 1 FROM search_index_pending WHERE image_id = $1::uuid", imageId)).length > 0;

  /**
   * The blocks hold exactly the postings the catalogue's images give (each indexed image once, under a
   * document number whose parity is its free flag), in blocks of at most 128 within their bounds; every term's
   * counts and the catalogue's size match.
   */
  /** Terms with more blocks than 128 postings to a block need: a term's blocks are full but for its last. */
  async function sparseTerms(): Promise<number | undefined> {
    const [sparse] = await rows<{ count: number }>(`
      SELECT count(*)::int AS count FROM (
        SELECT term_id FROM search_blocks GROUP BY term_id
        HAVING count(*) > ceil(sum(length(impacts)) / 128.0)) t`);
    return sparse?.count;
  }

  async function expectIndexExact(): Promise<void> {
    const documents = await rows<{ id: string }>(`
      SELECT i.id FROM images i LEFT JOIN search_documents s ON s.image_id = i.id
      WHERE i.source = 'catalogue' AND NOT EXISTS (SELECT 1 FROM search_index_pending p WHERE p.image_id = i.id)
        AND (s.document IS NULL OR (s.document % 2 = 1) <> i.free)
      UNION ALL
      SELECT s.image_id FROM search_documents s LEFT JOIN images i ON i.id = s.image_id
      WHERE i.id IS NULL OR i.source <> 'catalogue'`);
    expect(documents).toEqual([]);
    const misplaced = await rows<{ term_id: number }>(`
      WITH stored AS (
        SELECT b.term_id, u.document, u.impact FROM search_blocks b,
               unnest(search_block_documents(b.documents), search_block_impacts(b.impacts)) u(document, impact)
      ), expected AS (
        SELECT t.id AS term_id, s.document, x.impact FROM images i
        JOIN search_documents s ON s.image_id = i.id
        CROSS JOIN LATERAL imagehub_search_impacts(i.search_document) x
        JOIN search_terms t ON t.term = x.term
      )
      (SELECT * FROM stored EXCEPT ALL SELECT * FROM expected)
      UNION ALL
      (SELECT * FROM expected EXCEPT ALL SELECT * FROM stored)`);
    expect(misplaced).toEqual([]);
    const badBlocks = await rows<{ term_id: number }>(`
      SELECT b.term_id, b.first_document FROM search_blocks b
      WHERE length(b.impacts) NOT BETWEEN 1 AND 128 OR length(b.documents) <> 4 * length(b.impacts)
         OR EXISTS (SELECT 1 FROM unnest(search_block_documents(b.documents), search_block_impacts(b.impacts)) u(d, i)
                    WHERE u.d NOT BETWEEN b.first_document AND b.last_document OR u.i > b.max_impact)`);
    expect(badBlocks).toEqual([]);
    const wrong = await rows<{ term: string }>(`
      SELECT t.term FROM search_terms t
      LEFT JOIN (SELECT b.term_id, count(*)::int AS documents, (count(*) FILTER (WHERE u.d % 2 = 1))::int AS free_documents
                 FROM search_blocks b, unnest(search_block_documents(b.documents)) u(d) GROUP BY b.term_id) p
             ON p.term_id = t.id
      WHERE (t.documents, t.free_documents) <> (coalesce(p.documents, 0), coalesce(p.free_documents, 0))`);
    expect(wrong).toEqual([]);
    const [size] = await rows<{
      documents: number;
      free_documents: number;
      images: number;
      free_images: number;
    }>(`
      SELECT (SELECT sum(documents)::int FROM search_catalogue_size) AS documents,
             (SELECT sum(free_documents)::int FROM search_catalogue_size) AS free_documents,
             (SELECT count(*)::int FROM search_documents) AS images,
             (SELECT count(*)::int FROM search_documents WHERE document % 2 = 1) AS free_images`);
    expect([size?.documents, size?.free_documents]).toEqual([size?.images, size?.free_images]);
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

  it("indexes a seed at its end: every word of every image, counted, in full blocks", async () => {
    await seedCatalogue(database.prisma, { count: 600, seed: 5, batchSize: 250 });
    expect(await rows("SELECT image_id FROM search_index_pending")).toEqual([]);
    const [coverage] = await rows<{ postings: number; lexemes: number; images: number; blocks: number }>(`
      SELECT (SELECT sum(length(impacts))::int FROM search_blocks) AS postings,
             (SELECT count(*)::int FROM search_blocks) AS blocks,
             (SELECT sum(length(search_document))::int FROM images WHERE source = 'catalogue') AS lexemes,
             (SELECT count(*)::int FROM images WHERE source = 'catalogue') AS images`);
    expect(coverage?.images).toBe(600);
    expect(coverage?.postings).toBe(coverage?.lexemes);
    expect(await sparseTerms()).toBe(0);
    await expectIndexExact();
  });

  it("indexes a seed while it writes it, its flushes beside its batches: the index exact at its end", async () => {
    await seedCatalogue(database.prisma, {
      count: 1200,
      seed: 12,
      vocabulary: "realistic",
      batchSize: 100,
      indexEvery: 200,
    });
    expect(await rows("SELECT image_id FROM search_index_pending")).toEqual([]);
    expect(await sparseTerms()).toBe(0);
    await expectIndexExact();
  });

  it("continues each term's last block when images come in batches: blocks as full as in one go", async () => {
    await seedCatalogue(database.prisma, { count: 600, seed: 9, vocabulary: "realistic" });
    const blocks = await rows<{ blocks: number }>("SELECT count(*)::int AS blocks FROM search_blocks");
    await database.prisma.$executeRawUnsafe(`
      TRUNCATE search_blocks, search_documents;
      UPDATE search_terms SET documents = 0, free_documents = 0;
      UPDATE search_catalogue_size SET documents = 0, free_documents = 0`);
    const ids = (
      await rows<{ id: string }>("SELECT id FROM images WHERE source = 'catalogue' ORDER BY created_at, id")
    ).map((row) => row.id);
    // Batches of 70: a term's last block is continued, and past 128 split, batch after batch.
    for (let start = 0; start < ids.length; start += 70) {
      await database.prisma.$executeRaw`SELECT search_index_add(${ids.slice(start, start + 70)}::uuid[])`;
    }
    expect(await sparseTerms()).toBe(0);
    expect(await rows("SELECT count(*)::int AS blocks FROM search_blocks")).toEqual(blocks);
    await expectIndexExact();
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
      `SELECT t.term FROM search_documents s
       JOIN search_blocks b ON s.document BETWEEN b.first_document AND b.last_document
       JOIN search_terms t ON t.id = b.term_id
       WHERE s.image_id = $1::uuid AND s.document = ANY(search_block_documents(b.documents))`,
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

  it("commits a flush a chunk at a time: a chunk indexed is searchable while the next one is written", async () => {
    await database.prisma.$transaction([
      database.prisma.$executeRaw`SELECT set_config('imagehub.search_index', 'deferred', true)`,
      database.prisma.$executeRaw`
        INSERT INTO images (id, titles, tags, width, height)
        SELECT gen_random_uuid(), jsonb_build_object('en', 'heron ' || n, 'fr', 'héron ' || n), '{}', 768, 512
        FROM generate_series(1, 250) n`,
    ]);
    const [{ indexed: before } = { indexed: 0 }] = await rows<{ indexed: number }>(
      "SELECT count(*)::int AS indexed FROM search_documents",
    );
    // The second chunk's documents wait on a lock held here, after the first chunk's are written.
    await database.prisma.$executeRawUnsafe(`
      CREATE FUNCTION second_chunk_waits() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT count(*) FROM search_documents) > ${before} + 100 THEN PERFORM pg_advisory_xact_lock(4242); END IF;
        RETURN NULL;
      END $$`);
    await database.prisma.$executeRawUnsafe(
      "CREATE TRIGGER second_chunk_waits AFTER INSERT ON search_documents FOR EACH STATEMENT EXECUTE FUNCTION second_chunk_waits()",
    );
    const holder = new pg.Client(testDatabase.url);
    await holder.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(4242)");
      const flushing = flushSearchIndex(database.prisma, 100);
      await until(
        async () =>
          (
            await holder.query(
              "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND NOT granted",
            )
          ).rowCount === 1,
        { what: "the second chunk to wait" },
      );
      const seen = await holder.query("SELECT count(*)::int AS indexed FROM search_documents");
      expect(seen.rows[0].indexed).toBe(before + 100);
      await holder.query("SELECT pg_advisory_unlock(4242)");
      expect(await flushing).toBe(250);
    } finally {
      await holder.end();
      await database.prisma.$executeRawUnsafe("DROP TRIGGER second_chunk_waits ON search_documents");
      await database.prisma.$executeRawUnsafe("DROP FUNCTION second_chunk_waits()");
    }
    expect(await rows("SELECT image_id FROM search_index_pending")).toEqual([]);
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

  it("gives back the blocks' space of a deleted half of the catalogue after compaction and vacuum", async () => {
    await seedCatalogue(database.prisma, { count: 600, seed: 8, vocabulary: "realistic" });
    const blocksSize = async () =>
      (await rows<{ bytes: number }>("SELECT pg_total_relation_size('search_blocks')::int AS bytes"))[0]
        ?.bytes as number;
    const full = await blocksSize();
    await database.prisma.$executeRawUnsafe(`
      DELETE FROM images WHERE id IN (
        SELECT id FROM images WHERE source = 'catalogue' AND seed % 2 = 0 AND NOT EXISTS (
          SELECT 1 FROM purchases WHERE image_id = images.id))`);
    await expectIndexExact();
    expect(await compactSearchIndex(database.prisma)).toBeGreaterThan(0);
    await expectIndexExact();
    // A snapshot another session of the server holds keeps the dead rows until it ends: vacuum until then.
    await until(
      async () => {
        await database.prisma.$executeRawUnsafe("VACUUM FULL search_blocks");
        return (await blocksSize()) < full * 0.7;
      },
      { what: "the deleted half's space to come back" },
    );
  });
  it("moves the counters of search changes on what can change an answer, and only then", async () => {
    const catalogue = new CatalogueRepository(database.prisma, database, {
      catalogue: { postingsCacheMegabytes: 0 },
    } as AppConfig);
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

  it("lets two transactions add catalogue images at once: the second indexes once the first commits", async () => {
    const writers = [new pg.Client(testDatabase.url), new pg.Client(testDatabase.url)];
    try {
      for (const writer of writers) {
        await writer.connect();
        await writer.query("BEGIN");
      }
      const insert = (writer: pg.Client, word: string, free: boolean) =>
        writer.query(
          `INSERT INTO images (id, titles, tags, free, width, height)
           VALUES (gen_random_uuid(), jsonb_build_object('en', $1::text, 'fr', $1::text), '{}', $2, 768, 512)`,
          [word, free],
        );
      const [first, second] = writers as [pg.Client, pg.Client];
      await insert(first, "quokka", true);
      const waiting = insert(second, "quokka narwhal", false);
      // Index writers take turns: the second waits on the index's lock until the first commits.
      await vi.waitFor(async () => {
        const waiters = await rows<{ count: number }>(
          "SELECT count(*)::int AS count FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
        );
        expect(waiters[0]?.count).toBe(1);
      });
      await first.query("COMMIT");
      await waiting;
      await second.query("COMMIT");
    } finally {
      for (const writer of writers) await writer.end();
    }
    await expectIndexExact();
  });

  it("stores a generation's image while a catalogue write holds the index: only the catalogue is indexed", async () => {
    const [catalogueWriter, generationWriter] = [
      new pg.Client(testDatabase.url),
      new pg.Client(testDatabase.url),
    ];
    try {
      await Promise.all([catalogueWriter.connect(), generationWriter.connect()]);
      await catalogueWriter.query("BEGIN");
      await catalogueWriter.query(
        `INSERT INTO images (id, titles, tags, width, height)
         VALUES (gen_random_uuid(), '{"en": "wombat"}', '{}', 768, 512)`,
      );
      // Waiting on the index's lock fails the insert rather than hanging the test.
      await generationWriter.query("SET lock_timeout = '10s'");
      const { rows: stored } = await generationWriter.query<{ id: string }>(
        `INSERT INTO images (id, source, titles, tags, width, height)
         VALUES (gen_random_uuid(), 'generation', '{"en": "wombat at dusk"}', '{}', 1024, 1024) RETURNING id`,
      );
      expect(await postingsOf(stored[0]?.id as string)).toBe(0);
      await catalogueWriter.query("COMMIT");
    } finally {
      await Promise.all([catalogueWriter.end(), generationWriter.end()]);
    }
    await expectIndexExact();
  });

  it("runs one trigger function for an insert of a generation's image, the catalogue's work for a catalogue image", async () => {
    const client = new pg.Client(testDatabase.url);
    await client.connect();
    const changeCounter = async () =>
      BigInt(
        (await client.query("SELECT last_value::text AS value FROM search_catalogue_changes")).rows[0].value,
      );
    /**
     * The PL/pgSQL functions an insert of one image of `source` calls, by name, whether its word made up for
     * the test joined the spelling dictionary, and whether it moved the counter of the catalogue's changes
     * (the insert is rolled back; a sequence ignores that).
     */
    const insertOne = async (source: string) => {
      const before = await changeCounter();
      await client.query("BEGIN");
      try {
        await client.query("SET LOCAL track_functions = 'pl'");
        await client.query(
          `INSERT INTO images (id, source, titles, tags, width, height)
           VALUES (gen_random_uuid(), $1::"ImageSource", '{"en": "heron in reeds"}', '{"zquorble"}', 1024, 1024)`,
          [source],
        );
        const { rows: called } = await client.query<{ funcname: string; calls: number }>(
          "SELECT funcname, calls::int FROM pg_stat_xact_user_functions ORDER BY funcname",
        );
        const { rowCount } = await client.query("SELECT 1 FROM search_words WHERE word = 'zquorble'");
        return { called, wordCollected: rowCount === 1, counterMoved: (await changeCounter()) > before };
      } finally {
        await client.query("ROLLBACK");
      }
    };
    try {
      expect(await insertOne("generation")).toEqual({
        called: [{ funcname: "catalogue_images_inserted", calls: 1 }],
        wordCollected: false,
        counterMoved: false,
      });
      const catalogue = await insertOne("catalogue");
      expect(catalogue.called.map((called) => called.funcname)).toEqual(
        expect.arrayContaining(["catalogue_images_inserted", "search_index_add"]),
      );
      expect(catalogue).toMatchObject({ wordCollected: true, counterMoved: true });
    } finally {
      await client.end();
    }
    await expectIndexExact();
  });

  it("collects each word of the spelling dictionary once, however often the images of an insert or a change repeat it", async () => {
    const dictionary = async () =>
      (
        await rows<{ word: string; count: number }>(
          `SELECT word, count(*)::int AS count FROM search_words WHERE word IN ('zlorp', 'over', 'qwibble')
           GROUP BY word ORDER BY word`,
        )
      ).map(({ word, count }) => `${word}×${count}`);
    const [first] = await rows<{ id: string }>(`
      INSERT INTO images (id, titles, tags, width, height) VALUES
        (gen_random_uuid(), '{"en": "Zlorp zlorp ZLORP", "fr": "zlorp över"}', '{"zlorp", "Zlorp", "över"}', 768, 512),
        (gen_random_uuid(), '{"en": "A zlorp over the zlorp"}', '{"zlorp"}', 768, 512)
      RETURNING id`);
    expect(await dictionary()).toEqual(["over×1", "zlorp×1"]);
    await database.prisma.$executeRaw`
      UPDATE images SET titles = '{"en": "Qwibble qwibble zlorp"}', tags = '{"qwibble", "QWIBBLE"}'
      WHERE id = ${first?.id}::uuid`;
    expect(await dictionary()).toEqual(["over×1", "qwibble×1", "zlorp×1"]);
    await expectIndexExact();
  });

  it("computes a search document for catalogue images only, and again when an image joins the catalogue", async () => {
    const insert = async (source: string) =>
      (
        await rows<{ id: string; document: string | null }>(
          `INSERT INTO images (id, source, titles, tags, width, height)
           VALUES (gen_random_uuid(), $1::"ImageSource", '{"en": "otter on ice"}', '{}', 1024, 1024)
           RETURNING id, search_document::text AS document`,
          source,
        )
      )[0];
    const generated = await insert("generation");
    expect(generated?.document).toBeNull();
    const catalogue = await insert("catalogue");
    expect(catalogue?.document).toBe("'ice':3A 'otter':1A");
    const [joined] = await rows<{ document: string | null }>(
      "UPDATE images SET source = 'catalogue' WHERE id = $1::uuid RETURNING search_document::text AS document",
      generated?.id,
    );
    expect(joined?.document).toBe(catalogue?.document);
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
