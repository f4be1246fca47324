import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWebArea, PASSWORD, type SignedInOwner, type WebArea } from "./support/web-area.js";
import { expectSignedOut, NEW_PASSWORD, RAW_TIMESTAMP } from "./support/web-owners.js";

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
