import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountsService } from "../apps/api/src/accounts/accounts.service.js";
import { seriousAccessibilityViolations } from "./support/browser.js";
import { readJson } from "./support/json.js";
import { type LocalSmtpServer, startSmtpServer } from "./support/smtp-server.js";
import { openWebArea, PASSWORD, type SignedInOwner, type WebArea } from "./support/web-area.js";

const ADMIN_CLI = join(import.meta.dirname, "../apps/api/dist/admin/admin.cli.js");
const ADMIN_TOKEN = "queue-dashboard-token-for-tests";
const PHONE = { width: 390, height: 844 };

/** Every admin route, as a non-admin's or a forged request would call it. */
const ADMIN_ROUTES = (accountId: string, apiKeyId: string) => [
  { method: "GET", path: "/account/admin/settings" },
  { method: "GET", path: "/account/admin/accounts" },
  { method: "POST", path: "/account/admin/invitations", json: { email: "someone@example.test" } },
  {
    method: "POST",
    path: `/account/admin/accounts/${accountId}/credits`,
    json: { type: "f_images", amount: 100 },
  },
  { method: "GET", path: `/account/admin/accounts/${accountId}/api-keys` },
  { method: "DELETE", path: `/account/admin/accounts/${accountId}/api-keys/${apiKeyId}` },
  { method: "PUT", path: `/account/admin/accounts/${accountId}/admin`, json: { isAdmin: true } },
  { method: "GET", path: "/account/admin/audit" },
];

describe("the admin area, in a browser", () => {
  let area: WebArea;
  let smtp: LocalSmtpServer;
  const prisma = () => area.api.resources.database.prisma;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    area = await openWebArea({
      env: {
        QUEUE_DASHBOARD: "true",
        ADMIN_TOKEN,
        SMTP_URL: smtp.url,
        SMTP_FROM: "imagehub <admin@example.test>",
      },
    });
  });
  afterAll(async () => {
    await area?.close();
    await smtp?.close();
  });

  async function adminPage(): Promise<SignedInOwner> {
    const admin = await area.signedInOwner({ isAdmin: true });
    await admin.page.getByRole("link", { name: "Admin" }).click();
    await admin.page.getByRole("heading", { name: "Accounts" }).waitFor();
    return admin;
  }

  /** The account's entry on the admin page, found by the search field. */
  async function findAccount(admin: SignedInOwner, email: string) {
    await admin.page.getByLabel("Email or name contains").fill(email);
    await admin.page.getByRole("button", { name: "Search accounts" }).click();
    await admin.page.getByText("1 accounts").waitFor();
    return admin.page.getByRole("listitem", { name: email });
  }

  async function admin(env: Record<string, string>, ...args: string[]) {
    const fullEnv = { PATH: process.env.PATH ?? "", DATABASE_URL: area.api.database.url, ...env };
    return promisify(execFile)(process.execPath, [ADMIN_CLI, ...args], { env: fullEnv }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  }

  it("refuses every admin route to an account that is not an admin, which never sees the admin nav", async () => {
    const owner = await area.signedInOwner();
    const other = await area.invite();
    for (const route of ADMIN_ROUTES(other.accountId, other.apiKeyId)) {
      const answer = await area.sessionRequest(owner, route.path, route);
      expect(answer.status, route.path).toBe(403);
      expect(await readJson(answer)).toMatchObject({ statusCode: 403, message: ["admins only"] });
    }
    expect(
      await prisma().creditLedgerEntry.count({ where: { bucket: { accountId: other.accountId } } }),
    ).toBe(2);
    expect(await owner.page.getByRole("link", { name: "Admin" }).count()).toBe(0);
    await owner.page.goto(`${area.api.baseUrl}/accounts`);
    await owner.page.getByRole("heading", { name: "Not found" }).waitFor();
  });

  it("refuses the admin routes' changes without the session's CSRF token", async () => {
    const adminOwner = await area.signedInOwner({ isAdmin: true });
    const target = await area.invite();
    for (const route of ADMIN_ROUTES(target.accountId, target.apiKeyId).filter(
      (candidate) => candidate.method !== "GET",
    )) {
      const answer = await area.api.request(route.path, {
        method: route.method,
        json: route.json,
        headers: { cookie: adminOwner.cookie },
      });
      expect(answer.status, route.path).toBe(403);
      expect(await readJson(answer)).toMatchObject({
        message: ["x-csrf-token is missing or does not match the session"],
      });
    }
    expect((await area.api.request("/v1/api-keys/check", { apiKey: target.apiKey })).status).toBe(200);
  });

  it("lists accounts newest first, searched by email or name, a page at a time", async () => {
    const accounts = area.api.app.get(AccountsService);
    for (const name of ["Ada", "Brunel", "Curie"]) {
      await accounts.createAccount({
        email: `${name.toLowerCase()}@paging.test`,
        name,
        plan: "standard",
        credits: {},
        actor: "test",
      });
    }
    const adminOwner = await adminPage();
    const page = async (query: string) =>
      readJson(await area.sessionRequest(adminOwner, `/account/admin/accounts?${query}`));
    const all = await page("search=PAGING.test&limit=2");
    expect(all.filteredResults).toBe(3);
    expect(all.accounts.map((account: { email: string }) => account.email)).toEqual([
      "curie@paging.test",
      "brunel@paging.test",
    ]);
    expect((await page("search=paging.test&limit=2&offset=2")).accounts).toEqual([
      expect.objectContaining({
        email: "ada@paging.test",
        name: "Ada",
        hasPassword: false,
        liveApiKeyCount: 0,
      }),
    ]);
    expect((await page("search=brunel")).accounts).toHaveLength(1);
    expect((await area.sessionRequest(adminOwner, "/account/admin/accounts?limit=1000")).status).toBe(400);

    const entry = await findAccount(adminOwner, "Curie");
    await entry.getByText("no password: signs in by link").waitFor();
  });

  it("invites an account: the page shows the one-time link, which is mailed and works", async () => {
    const adminOwner = await adminPage();
    const { page } = adminOwner;
    await page.getByLabel("Email of the invitee").fill("newcomer@example.test");
    await page.getByLabel("Name (optional)").fill("Newcomer");
    await page.getByLabel("f_images credits").fill("25");
    await page.getByRole("button", { name: "Invite" }).click();
    const link = (await page.getByTestId("secret").textContent()) ?? "";
    expect(link).toMatch(/\/welcome#[\w-]{40,}$/);
    await page.getByText("It was mailed to the account's owner too.").waitFor();

    expect(smtp.received).toContainEqual(
      expect.objectContaining({ from: "admin@example.test", to: ["newcomer@example.test"] }),
    );
    const mail = smtp.received.find((candidate) => candidate.to.includes("newcomer@example.test"));
    expect(mail?.text).toContain(link);
    expect(mail?.text).toContain("Subject: Your imagehub account");

    const newcomer = await area.newPage();
    await area.acceptInvitation(
      newcomer,
      `${area.api.baseUrl}${new URL(link).pathname}${new URL(link).hash}`,
    );
    await newcomer.goto(`${area.api.baseUrl}/credits`);
    await newcomer.getByRole("row", { name: /f_images 25 25/ }).waitFor();
    const audit = await prisma().auditLog.findMany({
      where: { account: { email: "newcomer@example.test" }, action: "account.created" },
    });
    expect(audit.map((row) => row.actor)).toEqual([expect.stringMatching(/^session:/)]);
  });

  it("still shows the link when the mail server refuses the invitation, saying why", async () => {
    const adminOwner = await adminPage();
    const { page } = adminOwner;
    await page.getByLabel("Email of the invitee").fill("someone@refused.test");
    await page.getByRole("button", { name: "Invite" }).click();
    await page.getByTestId("secret").waitFor();
    await expect(page.getByText("The mail server refused the mail").textContent()).resolves.toContain("550");
    const token = new URL((await page.getByTestId("secret").textContent()) ?? "").hash.slice(1);
    const redeemed = await area.api.request("/account/links/redeem", {
      method: "POST",
      json: { token, password: PASSWORD },
    });
    expect(redeemed.status).toBe(200);
    expect(smtp.received.some((mail) => mail.to.includes("someone@refused.test"))).toBe(false);
  });

  it("mails the admin CLI's invitation, and exits 4 with the link when the mail server refuses", async () => {
    const sent = await admin(
      { SMTP_URL: smtp.url },
      "account",
      "invite",
      "--email",
      "cli@example.test",
      "--json",
    );
    expect(sent.code).toBe(0);
    const invitation = JSON.parse(sent.stdout);
    expect(invitation).toMatchObject({ email: "cli@example.test", mail: "sent" });
    const mail = smtp.received.find((candidate) => candidate.to.includes("cli@example.test"));
    expect(mail?.text).toContain(invitation.link);

    const wrongPassword = await admin(
      { SMTP_URL: smtp.urlWithWrongPassword },
      "account",
      "invite",
      "--email",
      "cli2@example.test",
      "--json",
    );
    expect(wrongPassword.code).toBe(4);
    expect(JSON.parse(wrongPassword.stdout)).toMatchObject({
      mail: "failed",
      link: expect.stringContaining("#"),
    });
    expect(wrongPassword.stderr).toContain("The mail server refused the invitation");
    expect(wrongPassword.stderr).toContain("535");

    const nobodyListening = await admin(
      { SMTP_URL: "smtp://127.0.0.1:9", SMTP_TIMEOUT_SECONDS: "5" },
      "account",
      "invite",
      "--email",
      "cli3@example.test",
    );
    expect(nobodyListening.code).toBe(4);
    expect(nobodyListening.stdout).toContain("link: ");
    expect(smtp.received.filter((candidate) => candidate.to.some((to) => to.startsWith("cli")))).toHaveLength(
      1,
    );
  });

  it("grants credits as the admin CLI does: the owner's ledger shows the grant, never an overdraft", async () => {
    const owner = await area.signedInOwner();
    const adminOwner = await adminPage();
    const entry = await findAccount(adminOwner, owner.email);
    await entry.getByRole("button", { name: `Grant credits to ${owner.email}` }).click();
    await entry.getByLabel("Amount").fill("7");
    await entry.getByLabel("Note (optional)").fill("welcome bonus");
    await entry.getByRole("button", { name: "Grant", exact: true }).click();
    await entry.getByText("Granted 7 f_images: 17 left.").waitFor();

    await owner.page.goto(`${area.api.baseUrl}/credits`);
    await owner.page.getByRole("row", { name: /\+7 Granted welcome bonus/ }).waitFor();
    await owner.page.getByRole("row", { name: /f_images 17 10/ }).waitFor();

    await entry.getByRole("button", { name: `Grant credits to ${owner.email}` }).click();
    await entry.getByLabel("Amount").fill("-18");
    await entry.getByRole("button", { name: "Grant", exact: true }).click();
    await expect(entry.getByRole("alert").textContent()).resolves.toBe(
      "cannot take 18 f_images credits away: the bucket holds 17",
    );

    // The CLI's grant, for the same account: the same row but for who made it.
    await admin(
      {},
      "credits",
      "grant",
      "--email",
      owner.email,
      "--type",
      "f_images",
      "--amount",
      "7",
      "--note",
      "cli",
    );
    const grants = await prisma().creditLedgerEntry.findMany({
      where: {
        bucket: { accountId: owner.accountId, type: "f_images" },
        reason: "grant",
        actor: { not: "test" },
      },
      orderBy: { id: "asc" },
    });
    expect(
      grants.map(({ amount, reason, reference, actor }) => ({ amount, reason, reference, actor })),
    ).toEqual([
      { amount: 7, reason: "grant", reference: "welcome bonus", actor: expect.stringMatching(/^session:/) },
      { amount: 7, reason: "grant", reference: "cli", actor: "admin" },
    ]);
  });

  it("revokes one key of an account: its requests are refused from then on, the other key still works", async () => {
    const owner = await area.invite();
    const other = await area.api.app.get(AccountsService).createApiKey({
      email: owner.email,
      name: "other",
      actor: "test",
    });
    const adminOwner = await adminPage();
    const entry = await findAccount(adminOwner, owner.email);
    await entry.getByText("2 live API keys").waitFor();
    await entry.getByRole("button", { name: `Show the API keys of ${owner.email}` }).click();
    const keys = entry.getByRole("table", { name: `API keys of ${owner.email}` });
    await keys.getByRole("row", { name: /other/ }).waitFor();
    const [firstKey] = await prisma().apiKey.findMany({ where: { id: owner.apiKeyId } });
    await keys.getByRole("button", { name: `Revoke ${firstKey?.name}` }).click();
    await keys.getByRole("button", { name: `Yes, revoke ${firstKey?.name}` }).click();
    // Revoked keys are hidden until asked for.
    await entry.getByLabel("Show the 1 revoked key").check();
    await keys.getByText(/^revoked /).waitFor();
    await entry.getByText("1 live API keys").waitFor();

    const refused = await area.api.request("/v1/api-keys/check", { apiKey: owner.apiKey });
    expect(refused.status).toBe(401);
    expect(await readJson(refused)).toMatchObject({ message: ["api-key has been revoked"] });
    expect((await area.api.request("/v1/api-keys/check", { apiKey: other.key })).status).toBe(200);
    const audit = await prisma().auditLog.findMany({
      where: { accountId: owner.accountId, action: "api_key.revoked" },
    });
    expect(audit.map((row) => [row.actorAccountId, row.details])).toEqual([
      [adminOwner.accountId, { apiKeyId: owner.apiKeyId }],
    ]);
    // Another account's key is not found under this account.
    const elsewhere = await area.sessionRequest(
      adminOwner,
      `/account/admin/accounts/${adminOwner.accountId}/api-keys/${other.apiKey.id}`,
      { method: "DELETE" },
    );
    expect(elsewhere.status).toBe(404);
    expect((await area.api.request("/v1/api-keys/check", { apiKey: other.key })).status).toBe(200);
  });

  it("records every admin change in the audit log, who did it to whom, shown newest first on the admin page", async () => {
    const owner = await area.invite();
    const adminOwner = await adminPage();
    const entry = await findAccount(adminOwner, owner.email);
    await entry.getByRole("button", { name: `Grant credits to ${owner.email}` }).click();
    await entry.getByLabel("Amount").fill("5");
    await entry.getByRole("button", { name: "Grant", exact: true }).click();
    await entry.getByText("Granted 5 f_images: 15 left.").waitFor();
    // A refused change leaves no audit row: the row is written in the change's own transaction.
    await entry.getByRole("button", { name: `Grant credits to ${owner.email}` }).click();
    await entry.getByLabel("Amount").fill("-100");
    await entry.getByRole("button", { name: "Grant", exact: true }).click();
    await entry.getByRole("alert").waitFor();
    await entry.getByRole("button", { name: "Cancel" }).click();
    await entry.getByRole("button", { name: `Make ${owner.email} an admin` }).click();
    await entry.getByRole("button", { name: `Yes, make ${owner.email} an admin` }).click();
    await entry.getByText("Now an admin.").waitFor();
    await entry.getByRole("button", { name: `Unmake ${owner.email} an admin` }).click();
    await entry.getByRole("button", { name: `Yes, unmake ${owner.email} an admin` }).click();
    await entry.getByText("No longer an admin.").waitFor();
    await entry.getByRole("button", { name: `Show the API keys of ${owner.email}` }).click();
    await entry.getByRole("button", { name: /^Revoke / }).click();
    await entry.getByRole("button", { name: /^Yes, revoke / }).click();
    await entry.getByText("0 live API keys").waitFor();
    // An existing account is never invited again (its link would hand the account over): a new one is.
    const invitee = `invitee-${owner.email}`;
    await adminOwner.page.getByLabel("Email of the invitee").fill(invitee);
    await adminOwner.page.getByRole("button", { name: "Invite" }).click();
    await adminOwner.page.getByTestId("secret").waitFor();

    const log = adminOwner.page.getByRole("table", { name: "Audit log" });
    const expected = [
      ["invited", invitee],
      ["created the account", invitee],
      ["revoked an API key", owner.email],
      ["unmade an admin", owner.email],
      ["made an admin", owner.email],
      ["granted credits", owner.email],
    ];
    for (const [index, [what, whom]] of expected.entries()) {
      // Row 0 is the header.
      await expect(
        log
          .getByRole("row")
          .nth(index + 1)
          .textContent(),
      ).resolves.toContain(`${adminOwner.email}${what}${whom}`);
    }

    const answer = await readJson(await area.sessionRequest(adminOwner, "/account/admin/audit?limit=6"));
    expect(answer.entries.map((row: { action: string }) => row.action)).toEqual([
      "account.invited",
      "account.created",
      "api_key.revoked",
      "account.admin_revoked",
      "account.admin_granted",
      "credits.granted",
    ]);
    expect(answer.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: "credits.granted",
          actor: expect.stringMatching(/^session:/),
          actorEmail: adminOwner.email,
          accountEmail: owner.email,
          details: { type: "f_images", amount: 5, reference: null },
        }),
      ]),
    );
    expect(answer.filteredResults).toBeGreaterThan(6);
    const grants = await prisma().auditLog.count({
      where: { accountId: owner.accountId, action: "credits.granted" },
    });
    expect(grants).toBe(1);
  });

  it("refuses an admin unmaking themselves", async () => {
    const adminOwner = await area.signedInOwner({ isAdmin: true });
    const answer = await area.sessionRequest(
      adminOwner,
      `/account/admin/accounts/${adminOwner.accountId}/admin`,
      { method: "PUT", json: { isAdmin: false } },
    );
    expect(answer.status).toBe(409);
    expect((await prisma().account.findUniqueOrThrow({ where: { id: adminOwner.accountId } })).isAdmin).toBe(
      true,
    );
  });

  it("links the queue dashboard, which asks for the admin token", async () => {
    const { page } = await adminPage();
    const link = page.getByRole("link", { name: "open the queue dashboard" });
    expect(await link.getAttribute("href")).toBe("/admin/queues");
    await link.click();
    await page.getByLabel(/token/i).waitFor();
    expect(new URL(page.url()).pathname).toBe("/admin/queues/login");
  });

  it("has no serious accessibility violation on the admin page, at a phone's width too", async () => {
    const adminOwner = await adminPage();
    for (const viewport of [{ width: 1100, height: 800 }, PHONE]) {
      await adminOwner.page.setViewportSize(viewport);
      await adminOwner.page.reload();
      await adminOwner.page.getByRole("listitem", { name: adminOwner.email }).waitFor();
      await adminOwner.page.getByRole("button", { name: `Grant credits to ${adminOwner.email}` }).click();
      expect(await seriousAccessibilityViolations(adminOwner.page)).toEqual([]);
    }
    expect(await adminOwner.page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
      PHONE.width,
    );
  });
});
