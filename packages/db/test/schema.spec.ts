import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/support/test-database.js";
import { type Database, openDatabase } from "../src/database.js";
import type { PrismaClient } from "../src/generated/prisma/client.js";

interface RuntimeField {
  name: string;
  kind: "scalar" | "enum" | "object";
  dbName?: string;
}
type RuntimeDataModel = { models: Record<string, { dbName: string | null; fields: RuntimeField[] }> };

/** Prisma's own view of schema.prisma, as compiled into the generated client. */
function dataModel(prisma: PrismaClient): RuntimeDataModel {
  return (prisma as unknown as { _runtimeDataModel: RuntimeDataModel })._runtimeDataModel;
}

/**
 * Writes one row per model with every scalar field set (nullable ones to a value), then reads it back.
 * Each writer returns the row as created so that the test can compare field by field.
 */
async function writeEveryModel(prisma: PrismaClient): Promise<Record<string, Record<string, unknown>>> {
  const at = new Date("2026-01-02T03:04:05.678Z");
  const account = await prisma.account.create({
    data: {
      email: "schema@example.test",
      name: "Schema",
      plan: "dedicated",
      createdAt: at,
      passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
      isAdmin: true,
      disabledAt: at,
      deletedAt: at,
    },
  });
  const session = await prisma.session.create({
    data: {
      accountId: account.id,
      tokenHash: "b".repeat(64),
      csrfToken: "csrf",
      createdAt: at,
      expiresAt: at,
      userAgent: "Mozilla/5.0",
    },
  });
  const signInLink = await prisma.signInLink.create({
    data: {
      accountId: account.id,
      tokenHash: "c".repeat(64),
      purpose: "set-password",
      createdAt: at,
      expiresAt: at,
      usedAt: at,
    },
  });
  const apiKey = await prisma.apiKey.create({
    data: {
      accountId: account.id,
      name: "key",
      prefix: "ih_abcdef",
      hash: "a".repeat(64),
      createdAt: at,
      lastUsedAt: at,
      revokedAt: at,
      expiresAt: at,
      scope: "read-only",
    },
  });
  const bucket = await prisma.creditBucket.create({
    data: {
      accountId: account.id,
      type: "f_images_print_fast",
      creditTotal: 7,
      unlimited: true,
      balance: 5,
      renewsAt: at,
      createdAt: at,
    },
  });
  const entry = await prisma.creditLedgerEntry.create({
    data: {
      bucketId: bucket.id,
      amount: -3,
      reason: "purchase",
      reference: "image-1",
      actor: "admin",
      createdAt: at,
    },
  });
  const audit = await prisma.auditLog.create({
    data: {
      accountId: account.id,
      actor: "admin",
      actorAccountId: account.id,
      action: "account.created",
      details: { nested: [1, "two"] },
      createdAt: at,
    },
  });
  const generation = await prisma.generation.create({
    data: {
      accountId: account.id,
      apiKeyId: apiKey.id,
      name: "Foxes",
      prompt: "a red fox --ar 16:9",
      additionalPrompt: "Winter.",
      mode: "advanced",
      optimizePrompt: true,
      optimizedPrompt: "A red fox in deep snow",
      params: [{ name: "chaos", value: "20" }],
      tags: ["fox"],
      metaData: { team: "blue" },
      processMode: "fast",
      status: 4,
      failureReason: "description not accepted",
      engine: "sdwebui",
      engineModel: "sd_xl_base_1.0",
      progress: 45,
      creditHeld: true,
      attempt: 2,
      workerToken: "token-1",
      createdAt: at,
      updatedAt: at,
    },
  });
  const webhook = await prisma.webhook.create({
    data: {
      accountId: account.id,
      apiKeyId: apiKey.id,
      url: "https://hooks.example.test/imagehub",
      events: ["print.completed", "test"],
      secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      createdAt: at,
      failingSince: at,
      disabledAt: at,
      disabledReason: "410 Gone",
    },
  });
  const outboxEvent = await prisma.outboxEvent.create({
    data: {
      accountId: account.id,
      generationId: generation.id,
      webhookId: webhook.id,
      type: "print.failed",
      payload: { id: generation.id, status: 4 },
      createdAt: at,
      relayedAt: at,
    },
  });
  const webhookDelivery = await prisma.webhookDelivery.create({
    data: {
      eventId: outboxEvent.id,
      webhookId: webhook.id,
      status: "failed",
      attempts: 7,
      nextAttemptAt: at,
      createdAt: at,
    },
  });
  const webhookAttempt = await prisma.webhookAttempt.create({
    data: {
      eventId: outboxEvent.id,
      webhookId: webhook.id,
      attempt: 7,
      statusCode: 500,
      durationMs: 12,
      error: "500 Internal Server Error",
      createdAt: at,
    },
  });
  const image = await prisma.image.create({
    data: {
      source: "generation",
      generationId: generation.id,
      generationIndex: 3,
      ownerAccountId: account.id,
      titles: { en: "A red fox", fr: "Un renard roux" },
      tags: ["fox", "snow"],
      free: true,
      validate: false,
      price: 3,
      popularity: 2,
      width: 1536,
      height: 1024,
      seed: 42,
      renditions: { preview: "images/x/preview.jpg" },
      createdAt: at,
      externalId: "schema-1",
      externalSource: "https://pictures.example.test/schema-1.png",
    },
  });
  const purchase = await prisma.purchase.create({
    data: { accountId: account.id, imageId: image.id, price: 3, downloadedAt: at },
  });
  const searchWord = await prisma.searchWord.create({ data: { word: "schemaword" } });
  const idempotencyKey = await prisma.idempotencyKey.create({
    data: {
      accountId: account.id,
      key: "create-fox-1",
      requestHash: "b".repeat(64),
      statusCode: 201,
      response: { id: "generation-1" },
      createdAt: at,
    },
  });
  const searchTerm = await prisma.searchTerm.create({
    data: { term: "schematerm", documents: 3, freeDocuments: 1 },
  });
  // The image above was indexed when written: this document stands for another one.
  const searchDocument = await prisma.searchDocument.create({
    data: { imageId: "00000000-0000-4000-8000-0000000000d0", document: 1_000_001 },
  });
  const searchBlock = await prisma.searchBlock.create({
    data: {
      termId: searchTerm.id,
      firstDocument: 1_000_001,
      lastDocument: 1_000_001,
      maxImpact: 200,
      documents: new Uint8Array([0, 15, 66, 65]),
      impacts: new Uint8Array([200]),
    },
  });
  const searchIndexPending = await prisma.searchIndexPending.create({
    data: { imageId: image.id, pendingSince: at },
  });
  const searchCatalogueSize = await prisma.searchCatalogueSize.create({
    data: { slot: 99, documents: 5, freeDocuments: 2 },
  });
  const unreferencedImageFile = await prisma.unreferencedImageFile.create({
    data: { key: "images/x/original-0123456789abcdef.jpg", createdAt: at },
  });
  return {
    IdempotencyKey: idempotencyKey,
    UnreferencedImageFile: unreferencedImageFile,
    SearchCatalogueSize: searchCatalogueSize,
    SearchIndexPending: searchIndexPending,
    SearchWord: searchWord,
    SearchTerm: searchTerm,
    SearchDocument: searchDocument,
    SearchBlock: searchBlock,
    Account: account,
    Session: session,
    SignInLink: signInLink,
    ApiKey: apiKey,
    // The ledger trigger keeps the balance: the entry above moved it.
    CreditBucket: { ...bucket, balance: bucket.balance - 3 },
    CreditLedgerEntry: entry,
    AuditLog: audit,
    Image: image,
    Purchase: purchase,
    Generation: generation,
    OutboxEvent: outboxEvent,
    Webhook: webhook,
    WebhookDelivery: webhookDelivery,
    WebhookAttempt: webhookAttempt,
  };
}

async function readEveryModel(prisma: PrismaClient, written: Record<string, Record<string, unknown>>) {
  const byId = (model: string) => ({ where: { id: written[model]?.id as never } });
  return {
    Account: await prisma.account.findUniqueOrThrow(byId("Account")),
    Session: await prisma.session.findUniqueOrThrow(byId("Session")),
    SignInLink: await prisma.signInLink.findUniqueOrThrow({ where: { tokenHash: "c".repeat(64) } }),
    ApiKey: await prisma.apiKey.findUniqueOrThrow(byId("ApiKey")),
    CreditBucket: await prisma.creditBucket.findUniqueOrThrow(byId("CreditBucket")),
    CreditLedgerEntry: await prisma.creditLedgerEntry.findUniqueOrThrow(byId("CreditLedgerEntry")),
    AuditLog: await prisma.auditLog.findUniqueOrThrow(byId("AuditLog")),
    Image: await prisma.image.findUniqueOrThrow(byId("Image")),
    Purchase: await prisma.purchase.findUniqueOrThrow(byId("Purchase")),
    Generation: await prisma.generation.findUniqueOrThrow(byId("Generation")),
    OutboxEvent: await prisma.outboxEvent.findUniqueOrThrow(byId("OutboxEvent")),
    Webhook: await prisma.webhook.findUniqueOrThrow(byId("Webhook")),
    WebhookDelivery: await prisma.webhookDelivery.findUniqueOrThrow({
      where: {
        eventId_webhookId: {
          eventId: written.WebhookDelivery?.eventId as string,
          webhookId: written.WebhookDelivery?.webhookId as string,
        },
      },
    }),
    WebhookAttempt: await prisma.webhookAttempt.findUniqueOrThrow(byId("WebhookAttempt")),
    IdempotencyKey: await prisma.idempotencyKey.findUniqueOrThrow({
      where: {
        accountId_key: {
          accountId: written.IdempotencyKey?.accountId as string,
          key: written.IdempotencyKey?.key as string,
        },
      },
    }),
    SearchWord: await prisma.searchWord.findUniqueOrThrow({ where: { word: "schemaword" } }),
    UnreferencedImageFile: await prisma.unreferencedImageFile.findUniqueOrThrow({
      where: { key: written.UnreferencedImageFile?.key as string },
    }),
    SearchTerm: await prisma.searchTerm.findUniqueOrThrow({ where: { term: "schematerm" } }),
    SearchCatalogueSize: await prisma.searchCatalogueSize.findUniqueOrThrow({ where: { slot: 99 } }),
    SearchIndexPending: await prisma.searchIndexPending.findUniqueOrThrow({
      where: { imageId: written.SearchIndexPending?.imageId as string },
    }),
    SearchDocument: await prisma.searchDocument.findUniqueOrThrow({
      where: { imageId: "00000000-0000-4000-8000-0000000000d0" },
    }),
    SearchBlock: await prisma.searchBlock.findUniqueOrThrow({
      where: {
        termId_firstDocument: { termId: written.SearchTerm?.id as number, firstDocument: 1_000_001 },
      },
    }),
  };
}

/**
 * Columns schema.prisma declares `Unsupported(...)` (generated search columns): the client leaves them
 * out of its data model, but they are part of the schema all the same.
 */
async function unsupportedColumns(): Promise<Record<string, string[]>> {
  const schema = await readFile(new URL("../prisma/schema.prisma", import.meta.url), "utf8");
  const columns: Record<string, string[]> = {};
  let unsupported: string[] = [];
  for (const line of schema.split("\n")) {
    const column = /Unsupported\([^)]*\)\??\s+@map\("(\w+)"\)/.exec(line)?.[1];
    if (/^model /.test(line)) unsupported = [];
    if (column) unsupported.push(column);
    const table = /@@map\("(\w+)"\)/.exec(line)?.[1];
    if (table && unsupported.length > 0) columns[table] = unsupported;
  }
  return columns;
}

async function columnsOf(database: Database): Promise<Record<string, string[]>> {
  const rows = await database.prisma.$queryRaw<{ table_name: string; column_name: string }[]>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`;
  return Object.fromEntries(
    [...new Set(rows.map((row) => row.table_name))].map((table) => [
      table,
      rows.filter((row) => row.table_name === table).map((row) => row.column_name),
    ]),
  );
}

function describeMatchesSchema(
  kind: string,
  open: () => Promise<{ database: Database; cleanup(): Promise<void> }>,
) {
  describe(`the migrated ${kind} database`, () => {
    let database: Database;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      ({ database, cleanup } = await open());
    });
    afterAll(async () => {
      await database.close();
      await cleanup();
    });

    it("has exactly the tables and columns of schema.prisma", async () => {
      const expected: Record<string, string[]> = {};
      const unsupported = await unsupportedColumns();
      for (const [name, model] of Object.entries(dataModel(database.prisma).models)) {
        const table = model.dbName ?? name;
        expected[table] = model.fields
          .filter((field) => field.kind !== "object")
          .map((field) => field.dbName ?? field.name)
          .concat(unsupported[table] ?? [])
          .sort();
      }
      expect(unsupported.images).toEqual(["search_document", "sort_keys_changed"]);
      const actual = await columnsOf(database);
      for (const table of Object.keys(actual)) actual[table]?.sort();
      expect(actual).toEqual(expected);
    });

    it("stores and returns every field of every model through the client", async () => {
      const written = await writeEveryModel(database.prisma);
      const models = dataModel(database.prisma).models;
      expect(Object.keys(written).sort()).toEqual(Object.keys(models).sort());
      for (const [name, model] of Object.entries(models)) {
        const scalarNames = model.fields
          .filter((field) => field.kind !== "object")
          .map((field) => field.name);
        expect(Object.keys(written[name] ?? {}).sort(), `${name} fields written`).toEqual(scalarNames.sort());
        for (const field of scalarNames) {
          expect(written[name]?.[field], `${name}.${field} is set`).not.toBeNull();
        }
      }
      expect(await readEveryModel(database.prisma, written)).toEqual(written);
    });

    it("refuses to change or delete ledger entries", async () => {
      const entry = await database.prisma.creditLedgerEntry.findFirstOrThrow();
      await expect(
        database.prisma.creditLedgerEntry.update({ where: { id: entry.id }, data: { amount: 1000 } }),
      ).rejects.toThrow(/append-only/);
      await expect(database.prisma.creditLedgerEntry.delete({ where: { id: entry.id } })).rejects.toThrow(
        /append-only/,
      );
    });

    it("keeps a generation's progress between 0 and 100", async () => {
      const generation = await database.prisma.generation.findFirstOrThrow();
      await expect(
        database.prisma.generation.update({ where: { id: generation.id }, data: { progress: 101 } }),
      ).rejects.toThrow(/generations_progress_check/);
    });
  });
}

describeMatchesSchema("PostgreSQL", async () => {
  const testDatabase: TestDatabase = await createTestDatabase();
  return { database: await openDatabase({ url: testDatabase.url }), cleanup: testDatabase.drop };
});

describeMatchesSchema("PGlite", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "imagehub-pglite-"));
  const database = await openDatabase({ dataDir });
  await database.migrate();
  return { database, cleanup: () => rm(dataDir, { recursive: true, force: true }) };
});
