import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";

const ADMIN_CLI = join(import.meta.dirname, "../dist/admin/admin.cli.js");

describe("admin CLI", () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  /** Runs the built CLI (what `npm run admin --` runs) against the test's database. */
  async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env = { PATH: process.env.PATH ?? "", DATABASE_URL: api.database.url };
    return promisify(execFile)(process.execPath, [ADMIN_CLI, ...args], { env }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  }

  it("creates an account with starting credits and a key the API accepts", async () => {
    const created = await admin(
      "account",
      "create",
      "--email",
      "grace@example.test",
      "--name",
      "Grace",
      "--plan",
      "dedicated",
      "--credits",
      "f_images=30,f_images_print_fast=5",
      "--json",
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ email: "grace@example.test", plan: "dedicated" });

    const { stdout } = await admin(
      "key",
      "create",
      "--email",
      "grace@example.test",
      "--name",
      "laptop",
      "--json",
    );
    const { key } = JSON.parse(stdout);
    expect(key).toMatch(/^ih_/);
    expect((await readJson(await api.request("/v1/api-keys/check", { apiKey: key }))).email).toBe(
      "grace@example.test",
    );
    expect((await readJson(await api.request("/v1/credit", { apiKey: key }))).credits).toEqual([
      { type: "f_images", credit: 30, creditTotal: 30, unlimited: false },
      { type: "f_images_print_fast", credit: 5, creditTotal: 5, unlimited: false },
    ]);
  });

  it("lists keys without the key and revokes one", async () => {
    await admin("account", "create", "--email", "linus@example.test");
    const { stdout } = await admin("key", "create", "--email", "linus@example.test", "--json");
    const { id, key } = JSON.parse(stdout);
    const listed = await admin("key", "list", "--email", "linus@example.test", "--json");
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id, prefix: key.slice(0, 9), revokedAt: null }),
    ]);
    expect(listed.stdout).not.toContain(key);

    expect((await admin("key", "revoke", "--email", "linus@example.test", "--id", id)).code).toBe(0);
    expect((await api.request("/v1/api-keys/check", { apiKey: key })).status).toBe(401);
  });

  it("grants credits as ledger entries and records every change in the audit log", async () => {
    await admin("account", "create", "--email", "joan@example.test", "--credits", "f_images=10");
    await admin(
      "credits",
      "grant",
      "--email",
      "joan@example.test",
      "--type",
      "f_images",
      "--amount=-4",
      "--note",
      "refund",
    );
    const prisma = api.resources.database.prisma;
    const entries = await prisma.creditLedgerEntry.findMany({
      where: { bucket: { account: { email: "joan@example.test" } } },
      orderBy: { id: "asc" },
    });
    expect(
      entries.map(({ amount, reason, actor, reference }) => ({ amount, reason, actor, reference })),
    ).toEqual([
      { amount: 10, reason: "grant", actor: "admin", reference: null },
      { amount: -4, reason: "adjustment", actor: "admin", reference: "refund" },
    ]);
    const audit = await prisma.auditLog.findMany({
      where: { account: { email: "joan@example.test" } },
      orderBy: { id: "asc" },
    });
    expect(audit.map((row) => [row.action, row.actor, row.actorAccountId])).toEqual([
      ["account.created", "admin", null],
      ["credits.granted", "admin", null],
    ]);
  });

  it("exits 2 with the usage on a bad command and 3 on an unknown or duplicate account", async () => {
    const usage = await admin("key", "rotate");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("Usage: npm run admin");
    expect((await admin("key", "list", "--email", "nobody@example.test")).code).toBe(3);
    await admin("account", "create", "--email", "twice@example.test");
    const duplicate = await admin("account", "create", "--email", "twice@example.test");
    expect(duplicate.code).toBe(3);
    expect(duplicate.stderr.trim()).toBe("an account with email twice@example.test already exists");
  });

  it("invites an owner with a one-time link that sets their password for the web area", async () => {
    const invited = await admin("account", "invite", "--email", "ida@example.test", "--admin", "--json");
    expect(invited.code).toBe(0);
    const { link, isAdmin } = JSON.parse(invited.stdout);
    expect(isAdmin).toBe(true);
    const token = /^http:\/\/localhost:3000\/welcome#(\S+)$/.exec(link)?.[1];
    const redeem = (body: unknown) => api.request("/account/links/redeem", { method: "POST", json: body });
    expect(await readJson(await redeem({ token }))).toMatchObject({
      message: ["password: is required to accept an invitation"],
    });
    const redeemed = await redeem({ token, password: "a long password" });
    expect(await readJson(redeemed)).toMatchObject({ account: { email: "ida@example.test", isAdmin: true } });
    expect((await redeem({ token, password: "a long password" })).status).toBe(410);
    const signIn = await api.request("/account/sign-in", {
      method: "POST",
      json: { email: "ida@example.test", password: "a long password" },
    });
    expect(signIn.status).toBe(200);
  });
});
