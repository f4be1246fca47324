import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignInLinksService } from "../apps/api/src/account-area/sign-in-links.service.js";
import { AccountsService } from "../apps/api/src/accounts/accounts.service.js";
import { seriousAccessibilityViolations } from "./support/browser.js";
import { readJson } from "./support/json.js";
import { type LocalSmtpServer, startSmtpServer } from "./support/smtp-server.js";
import { until } from "./support/until.js";
import {
  openWebArea,
  PASSWORD,
  PHONE_VIEWPORT,
  SIXTY_FIVE_WORDS,
  type SignedInOwner,
  sidewaysOverflow,
  type WebArea,
} from "./support/web-area.js";

const NEW_PASSWORD = "a brand new passphrase";

/** An ISO 8601 timestamp as the API writes them: never what a reader should see. */
const RAW_TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** A one-time link of the test server for the account, e.g. the embedded demo account's sign-in link. */
async function linkFor(web: WebArea, email: string, purpose: "sign-in" | "set-password"): Promise<string> {
  const link = new URL((await web.api.app.get(SignInLinksService).create(email, purpose)).url);
  return `${web.api.baseUrl}${link.pathname}${link.hash}`;
}

/** The names of the tables wider than their box (the reader must scroll sideways to see them whole). */
const CUT_OFF_TABLES = `[...document.querySelectorAll("figure.table-wrap")]
  .filter((box) => box.scrollWidth > box.clientWidth)
  .map((box) => box.getAttribute("aria-label"))`;

/** The text of the page's main heading. */
function mainHeading(page: Page): Promise<string | null> {
  return page.locator("h1").textContent();
}

async function expectSignedOut(page: Page): Promise<void> {
  await page.reload();
  await page.getByRole("heading", { name: "Sign in to imagehub" }).waitFor();
}

describe("the web area for account owners, with a mail server", () => {
  let web: WebArea;
  let smtp: LocalSmtpServer;
  const prisma = () => web.api.resources.database.prisma;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    web = await openWebArea({ env: { SMTP_URL: smtp.url, SMTP_FROM: "imagehub <noreply@example.test>" } });
  });
  afterAll(async () => {
    await web?.close();
    await smtp?.close();
  });

  it("lands on the account from the demo sign-in link even when the first session check answers 401 last", async () => {
    const { email } = await web.invite();
    const page = await web.newPage();
    // The app's first GET /account/session goes out before the link is redeemed: its 401 is held back until
    // the link has signed the page in, as a busy server answers it.
    let isSessionCheckHeld = true;
    await page.route("**/account/session", async (route) => {
      const answer = await route.fetch();
      if (isSessionCheckHeld) {
        isSessionCheckHeld = false;
        await page.getByRole("heading", { name: "Your account" }).waitFor();
      }
      await route.fulfill({ response: answer });
    });
    const heldAnswer = page.waitForEvent("requestfinished", (request) =>
      request.url().endsWith("/account/session"),
    );
    await page.goto(await linkFor(web, email, "sign-in"));
    expect((await (await heldAnswer).response())?.status()).toBe(401);
    // A later marker: the page reads its settings again after the held answer has reached it.
    await page.evaluate(() => fetch("/account/settings").then((answer) => answer.text()));
    await expect(mainHeading(page)).resolves.toBe("Your account");
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
  });

  it("sets a password on a link-only account, then changes it: the other sessions end", async () => {
    const { email } = await web.invite();
    const page = await web.newPage();
    await page.goto(await linkFor(web, email, "sign-in"));
    await page.getByRole("heading", { name: "Set a password" }).waitFor();
    await page.getByLabel("New password").fill(PASSWORD);
    await page.getByLabel("The same password again").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByText("Password set: you can sign in with it from now on.").waitFor();

    const other = await web.newPage();
    await web.signIn(other, email);
    await other.getByRole("heading", { name: "Your account" }).waitFor();

    await page.getByLabel("Current password").fill("not the password");
    await page.getByLabel("New password").fill(NEW_PASSWORD);
    await page.getByLabel("The same password again").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Change password" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toBe("the current password is wrong");
    await page.getByLabel("Current password").fill(PASSWORD);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Password changed. Your other sessions have ended.").waitFor();

    await expectSignedOut(other);
    await web.signIn(other, email, NEW_PASSWORD);
    await other.getByRole("heading", { name: "Your account" }).waitFor();
    const audit = await prisma().auditLog.findMany({ where: { account: { email } }, orderBy: { id: "asc" } });
    expect(audit.map((row) => row.action)).toEqual(
      expect.arrayContaining(["account.password_set", "account.password_changed"]),
    );
  });

  it("lists the account's sessions and signs one of them out", async () => {
    const owner = await web.signedInOwner();
    const other = await web.newPage();
    await web.signIn(other, owner.email);
    await other.getByRole("heading", { name: "Your account" }).waitFor();

    await owner.page.reload();
    const sessions = owner.page.getByRole("table", { name: "Your sessions" });
    await sessions.getByText("this session").waitFor();
    await expect(sessions.getByRole("row").count()).resolves.toBe(3);
    await sessions.getByRole("button", { name: /^Sign out the session of / }).click();
    await sessions.getByRole("button", { name: "Yes, sign it out" }).click();
    await owner.page.getByRole("table", { name: "Your sessions" }).getByText("Signed in 1 time").waitFor();
    await expectSignedOut(other);
    await owner.page.reload();
    await owner.page.getByRole("heading", { name: "Your account" }).waitFor();

    // Another account's session is not this account's to end.
    const stranger = await web.signedInOwner();
    const [ownSession] = await prisma().session.findMany({ where: { account: { email: owner.email } } });
    const refused = await web.sessionRequest(stranger, `/account/sessions/${ownSession?.id}`, {
      method: "DELETE",
    });
    expect(refused.status).toBe(404);
  });

  it("mails a one-time reset link for a forgotten password, which signs the account out everywhere", async () => {
    const owner = await web.signedInOwner();
    const page = await web.newPage();
    await page.goto(web.api.baseUrl);
    await page.getByRole("button", { name: "Forgot your password?" }).click();
    await page.getByRole("heading", { name: "Reset a forgotten password" }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    // An email without an account gets the same answer, and no mail.
    await page.getByLabel("Email of your account").fill("nobody-here@example.test");
    await page.getByRole("button", { name: "Mail me a reset link" }).click();
    await page.getByText("If nobody-here@example.test has an account").waitFor();
    await page.getByLabel("Email of your account").fill(owner.email);
    await page.getByRole("button", { name: "Mail me a reset link" }).click();
    await page.getByText(`If ${owner.email} has an account`).waitFor();
    expect(smtp.received.filter((mail) => mail.to.includes("nobody-here@example.test"))).toEqual([]);
    const mail = smtp.received.find((candidate) => candidate.to.includes(owner.email));
    expect(mail?.text).toContain("Subject: Reset your imagehub password");
    const link = new URL(/https?:\/\/\S+\/reset#[\w-]+/.exec(mail?.text ?? "")?.[0] ?? "");

    const reset = await web.newPage();
    await reset.goto(`${web.api.baseUrl}${link.pathname}${link.hash}`);
    await reset.getByRole("heading", { name: "Choose a new password" }).waitFor();
    expect(await seriousAccessibilityViolations(reset)).toEqual([]);
    await reset.getByLabel("New password").fill(NEW_PASSWORD);
    await reset.getByLabel("The same password again").fill(NEW_PASSWORD);
    await reset.getByRole("button", { name: "Set the new password and sign in" }).click();
    await reset.getByRole("heading", { name: "Your account" }).waitFor();
    await expectSignedOut(owner.page);
    await web.signIn(owner.page, owner.email, NEW_PASSWORD);
    await owner.page.getByRole("heading", { name: "Your account" }).waitFor();

    const again = await web.newPage();
    await again.goto(`${web.api.baseUrl}${link.pathname}${link.hash}`);
    await again.getByLabel("New password").fill(PASSWORD);
    await again.getByLabel("The same password again").fill(PASSWORD);
    await again.getByRole("button", { name: "Set the new password and sign in" }).click();
    await expect(again.getByRole("alert").textContent()).resolves.toContain("already used");
  });

  it("shows a new key once with Copied feedback, hides it once revoked, and hides revoked keys unless asked", async () => {
    const { page } = await web.signedInOwner();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name of the new key").fill("laptop");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("secret").textContent()) ?? "";
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByText("Copied", { exact: true }).waitFor();
    await expect(page.evaluate("navigator.clipboard.readText()")).resolves.toBe(key);
    const keys = page.getByRole("table", { name: "Your API keys" });
    await keys.getByText("2 live keys").waitFor();

    await page.getByRole("button", { name: "Revoke laptop" }).click();
    await page.getByRole("button", { name: "Yes, revoke laptop" }).click();
    await keys.getByText("1 live key").waitFor();
    await expect(page.getByTestId("secret").count()).resolves.toBe(0);
    await expect(keys.getByRole("row", { name: /laptop/ }).count()).resolves.toBe(0);
    await page.getByLabel("Show the 1 revoked key").check();
    await keys
      .getByRole("row", { name: /laptop/ })
      .getByText("revoked")
      .waitFor();
    expect(await page.locator("main").textContent()).not.toMatch(RAW_TIMESTAMP);
  });

  it("speaks in plain words: a form's problems, and refusals, never in the schema's wording", async () => {
    const { page } = await web.signedInOwner();
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name of the new key").fill("   ");
    await page.getByRole("button", { name: "Create key" }).click();
    const name = page.getByLabel("Name of the new key");
    await expect(name.getAttribute("aria-invalid")).resolves.toBe("true");
    await page.getByText("This field is required.").waitFor();

    await page.getByRole("link", { name: "Catalogue" }).click();
    await page.getByLabel("Keywords").fill(SIXTY_FIVE_WORDS);
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toBe("Search must have at most 64 words.");
    expect(await page.locator("main").textContent()).not.toMatch(/Too (big|small)|expected string/);
  });

  it("titles each page and moves focus to its heading when navigated to", async () => {
    const { page } = await web.signedInOwner();
    await expect(page.title()).resolves.toBe("Account · imagehub");
    for (const [link, heading] of [
      ["API keys", "API keys"],
      ["Credits", "Credits"],
      ["Account", "Your account"],
    ] as const) {
      await page.getByRole("link", { name: link, exact: true }).click();
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      await expect(page.title()).resolves.toBe(`${link} · imagehub`);
      await expect(page.evaluate("document.activeElement?.textContent")).resolves.toBe(heading);
    }
  });

  it("lays every table out to fit a phone", async () => {
    const owner = await web.signedInOwner({ isAdmin: true });
    const { page } = owner;
    await page.setViewportSize(PHONE_VIEWPORT);
    for (const path of ["/", "/keys", "/credits", "/accounts"]) {
      await page.goto(`${web.api.baseUrl}${path}`);
      await page.getByRole("table").first().getByRole("row").first().waitFor();
      expect(await sidewaysOverflow(page), path).toBe(0);
      const cut = await page.evaluate(CUT_OFF_TABLES);
      expect(cut, path).toEqual([]);
    }
  });

  it("keys can be read-only or expire: /v1 refuses such a key what it may not do", async () => {
    const owner = await web.signedInOwner();
    const { page } = owner;
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name of the new key").fill("dashboard");
    await page.getByLabel("Access").selectOption("read-only");
    await page.getByLabel("Expires after").selectOption("30");
    await page.getByRole("button", { name: "Create key" }).click();
    const readOnlyKey = (await page.getByTestId("secret").textContent()) ?? "";
    const row = page.getByRole("row", { name: /dashboard/ });
    await row.getByText("Read-only").waitFor();
    const [stored] = await prisma().apiKey.findMany({ where: { name: "dashboard" } });
    expect(stored?.expiresAt?.getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(stored?.expiresAt?.getTime()).toBeLessThan(Date.now() + 31 * 86_400_000);

    const v1 = (path: string, init: { method?: string; json?: unknown } = {}) =>
      web.api.request(path, { apiKey: readOnlyKey, ...init });
    expect((await v1("/v1/api-keys/check")).status).toBe(200);
    expect((await v1("/v1/credit")).status).toBe(200);
    expect((await v1("/v1/images/search", { method: "POST", json: { search: "harbour" } })).status).toBe(200);
    expect((await v1("/v1/images/downladed", { method: "POST", json: {} })).status).toBe(200);
    expect((await v1("/v1/image-generations")).status).toBe(200);
    for (const [method, path, json] of [
      ["POST", "/v1/images/buy", { id: "any-image" }],
      ["POST", "/v1/image-generations", { name: "n", prompt: "a harbour", mode: "simple" }],
      ["POST", "/v1/api-keys/webhook/subscribe", { url: "https://example.test/hook" }],
      ["DELETE", "/v1/image-generations", { printIds: [] }],
    ] as const) {
      const refused = await v1(path, { method, json });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(await readJson(refused)).toMatchObject({
        statusCode: 403,
        message: ["this API key is read-only: it can search, display and list, not spend or change"],
      });
    }
    const credits = await prisma().creditBucket.findMany({ where: { account: { email: owner.email } } });
    expect(credits.map((bucket) => bucket.balance).sort()).toEqual([10, 5].sort());

    // A key past its expiry is refused, and the page says it expired.
    const expired = await web.api.app.get(AccountsService).createApiKey({
      email: owner.email,
      name: "old script",
      actor: "test",
      terms: { expiresAt: new Date(Date.now() - 60_000) },
    });
    const refused = await web.api.request("/v1/api-keys/check", { apiKey: expired.key });
    expect(refused.status).toBe(401);
    expect((await readJson(refused)).message[0]).toMatch(/^api-key expired at /);
    await page.reload();
    await page
      .getByRole("row", { name: /old script/ })
      .getByText(/^expired /)
      .waitFor();
    // The schema refuses an expiry in the past.
    const past = await web.sessionRequest(owner, "/account/api-keys", {
      method: "POST",
      json: { name: "late", expiresAt: new Date(Date.now() - 1000).toISOString() },
    });
    expect(past.status).toBe(400);
    expect(await readJson(past)).toMatchObject({ message: ["expiresAt: must be in the future"] });
  });

  it("has no accessibility violation, duplicate landmark names included, on any page", async () => {
    const owner = await web.signedInOwner({ isAdmin: true });
    const { page } = owner;
    for (const [path, heading] of [
      ["/", "Your account"],
      ["/keys", "API keys"],
      ["/generations", "Generations"],
      ["/webhooks", "Webhooks"],
      ["/catalogue", "Catalogue"],
      ["/credits", "Credits"],
      ["/accounts", "Admin"],
    ] as const) {
      await page.goto(`${web.api.baseUrl}${path}`);
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      await until(async () => (await page.getByText(/^Loading /).count()) === 0, { what: `${path} loaded` });
      expect(await seriousAccessibilityViolations(page), path).toEqual([]);
    }
  });
});

describe("the web area for account owners, without a mail server", () => {
  let web: WebArea;
  const prisma = () => web.api.resources.database.prisma;

  beforeAll(async () => {
    web = await openWebArea();
  });
  afterAll(async () => {
    await web?.close();
  });

  async function adminEntry(admin: SignedInOwner, email: string) {
    await admin.page.goto(`${web.api.baseUrl}/accounts`);
    await admin.page.getByLabel("Email or name contains").fill(email);
    await admin.page.getByRole("button", { name: "Search accounts" }).click();
    const entry = admin.page.getByRole("listitem", { name: email });
    await entry.waitFor();
    return entry;
  }

  it("sends a forgotten password to an admin, whose reset link ends the account's sessions and is audited", async () => {
    const owner = await web.signedInOwner();
    const page = await web.newPage();
    await page.goto(web.api.baseUrl);
    await page.getByRole("button", { name: "Forgot your password?" }).click();
    await page.getByText("Ask an admin of imagehub for a password reset link").waitFor();
    const refused = await web.api.request("/account/password/forgot", {
      method: "POST",
      json: { email: owner.email },
    });
    expect(refused.status).toBe(503);

    const admin = await web.signedInOwner({ isAdmin: true });
    const entry = await adminEntry(admin, owner.email);
    await entry.getByRole("button", { name: `Issue a password reset link for ${owner.email}` }).click();
    await entry.getByRole("button", { name: `Yes, sign ${owner.email} out and issue the link` }).click();
    const link = new URL((await entry.getByTestId("secret").textContent()) ?? "");
    expect(link.pathname).toBe("/reset");
    await expectSignedOut(owner.page);

    await page.goto(`${web.api.baseUrl}${link.pathname}${link.hash}`);
    await page.getByLabel("New password").fill(NEW_PASSWORD);
    await page.getByLabel("The same password again").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Set the new password and sign in" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    const audit = await prisma().auditLog.findMany({
      where: { account: { email: owner.email }, action: "account.password_reset_issued" },
    });
    expect(audit).toHaveLength(1);
    expect(audit[0]?.actorAccountId).toBe(admin.accountId);
  });

  it("disables and enables an account: its sessions end, its sign-ins and keys are refused meanwhile", async () => {
    const owner = await web.signedInOwner();
    const admin = await web.signedInOwner({ isAdmin: true });
    const entry = await adminEntry(admin, owner.email);
    await entry.getByRole("button", { name: `Disable ${owner.email}` }).click();
    await entry.getByRole("button", { name: `Yes, disable ${owner.email}` }).click();
    await entry.getByText("disabled", { exact: true }).waitFor();
    await expectSignedOut(owner.page);
    const keyRefused = await web.api.request("/v1/credit", { apiKey: owner.apiKey });
    expect(keyRefused.status).toBe(403);
    await web.signIn(owner.page, owner.email);
    await expect(owner.page.getByRole("alert").textContent()).resolves.toBe(
      "this account is disabled: ask an admin",
    );

    await entry.getByRole("button", { name: `Enable ${owner.email}` }).click();
    await entry.getByRole("button", { name: `Yes, enable ${owner.email}` }).click();
    await entry.getByRole("button", { name: `Disable ${owner.email}` }).waitFor();
    expect((await web.api.request("/v1/credit", { apiKey: owner.apiKey })).status).toBe(200);
    await web.signIn(owner.page, owner.email);
    await owner.page.getByRole("heading", { name: "Your account" }).waitFor();
    const actions = await prisma().auditLog.findMany({
      where: { account: { email: owner.email }, action: { in: ["account.disabled", "account.enabled"] } },
      orderBy: { id: "asc" },
    });
    expect(actions.map((row) => row.action)).toEqual(["account.disabled", "account.enabled"]);
    // An admin cannot lock themselves out.
    const self = await web.sessionRequest(admin, `/account/admin/accounts/${admin.accountId}/disabled`, {
      method: "PUT",
      json: { isDisabled: true },
    });
    expect(self.status).toBe(409);
  });

  it("deletes an account: who it was and every way in go, the ledger stays anonymous, the audit row names it", async () => {
    const owner = await web.signedInOwner();
    const admin = await web.signedInOwner({ isAdmin: true });
    const entry = await adminEntry(admin, owner.email);
    await entry.getByRole("button", { name: `Delete ${owner.email}` }).click();
    await entry.getByRole("button", { name: `Yes, delete ${owner.email} and all it owns` }).click();
    await admin.page.getByText("0 accounts").waitFor();
    expect((await web.api.request("/v1/api-keys/check", { apiKey: owner.apiKey })).status).toBe(401);
    await expectSignedOut(owner.page);
    expect(await prisma().account.findUnique({ where: { email: owner.email } })).toBeNull();
    const remains = await prisma().account.findUniqueOrThrow({
      where: { id: owner.accountId },
      include: { apiKeys: true, sessions: true },
    });
    expect(remains).toMatchObject({ name: null, passwordHash: null, apiKeys: [], sessions: [] });
    expect(remains.email).toBe(`deleted-${owner.accountId}@deleted.invalid`);
    const deleted = await prisma().auditLog.findFirst({ where: { action: "account.deleted" } });
    expect(deleted).toMatchObject({ accountId: owner.accountId, details: { email: owner.email } });
  });

  it("cancels an invitation, and labels a link-only account as such rather than as invited", async () => {
    const invited = await web.invite();
    const admin = await web.signedInOwner({ isAdmin: true });
    const entry = await adminEntry(admin, invited.email);
    await entry.getByText("invitation pending").waitFor();
    await entry.getByRole("button", { name: `Cancel the invitation of ${invited.email}` }).click();
    await entry.getByRole("button", { name: `Yes, cancel the invitation of ${invited.email}` }).click();
    await entry.getByText("no password: signs in by link").waitFor();
    const redeemed = await web.api.request("/account/links/redeem", {
      method: "POST",
      json: { token: new URL(invited.link).hash.slice(1), password: PASSWORD },
    });
    expect(redeemed.status).toBe(410);
    const audit = await prisma().auditLog.findMany({
      where: { account: { email: invited.email }, action: "account.invitation_cancelled" },
    });
    expect(audit).toHaveLength(1);

    // The embedded demo account: no password and no invitation, only sign-in links.
    const { email } = await web.invite();
    await prisma().signInLink.deleteMany({ where: { account: { email } } });
    const demo = await adminEntry(admin, email);
    await demo.getByText("no password: signs in by link").waitFor();
    expect(await admin.page.locator("main").textContent()).not.toMatch(RAW_TIMESTAMP);
  });
});
