import { Prisma } from "@imagehub/db";
import { describe, expect, it, vi } from "vitest";
import { answerStep, type HeldKey, recordAnswer } from "./idempotent-write.js";

const key: HeldKey = {
  scope: { accountId: "00000000-0000-4000-8000-000000000001", key: "create-1" },
  statusCode: 201,
};

/** A transaction that records the statements it is given. */
function recordingTransaction() {
  const statements: Prisma.Sql[] = [];
  const tx = { $executeRaw: vi.fn(async (statement: Prisma.Sql) => void statements.push(statement)) };
  return { tx: tx as unknown as Prisma.TransactionClient, statements };
}

describe("recordAnswer", () => {
  it("records the write's answer under the request's key, with the status of its success", async () => {
    const { tx, statements } = recordingTransaction();
    await recordAnswer(tx, { key, answerOf: (id: string) => ({ id }) }, "generation-1");
    expect(statements).toHaveLength(1);
    expect(statements[0]?.sql).toMatch(/^\s*UPDATE idempotency_keys SET status_code = \?/);
    expect(statements[0]?.values).toEqual([201, '{"id":"generation-1"}', key.scope.accountId, key.scope.key]);
  });

  it("keeps a refusal naming what was made instead of an answer that holds a secret", async () => {
    const { tx, statements } = recordingTransaction();
    await recordAnswer(
      tx,
      { key, answerOf: () => ({ webhookId: "webhook-1", secret: "whsec_x" }) },
      undefined,
    );
    const [statusCode, response] = statements[0]?.values ?? [];
    expect(statusCode).toBe(409);
    expect(response).toContain("look up webhook webhook-1 instead");
    expect(response).not.toContain("whsec_x");
  });

  it("writes nothing for a request that holds no key", async () => {
    const { tx, statements } = recordingTransaction();
    const answerOf = vi.fn();
    await recordAnswer(tx, { key: undefined, answerOf }, "generation-1");
    expect(statements).toEqual([]);
    expect(answerOf).not.toHaveBeenCalled();
  });
});

describe("answerStep", () => {
  it("adds to a one-statement write the step that records its answer when the write wrote a row", () => {
    const step = answerStep(key, { id: "generation-1" }, Prisma.raw("created"));
    expect(step.sql).toMatch(/^, answered AS \(\s*UPDATE idempotency_keys/);
    expect(step.sql).toContain("AND EXISTS (SELECT 1 FROM created)");
  });

  it("adds nothing for a request that holds no key", () => {
    expect(answerStep(undefined, { id: "generation-1" }, Prisma.raw("created"))).toBe(Prisma.empty);
  });
});
