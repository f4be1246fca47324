import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousAccessibilityViolations } from "./support/browser.js";
import type { LocalSmtpServer } from "./support/smtp-server.js";
import { PASSWORD, type WebArea } from "./support/web-area.js";
import {
  expectSignedOut,
  linkFor,
  mainHeading,
  NEW_PASSWORD,
  openWebAreaWithMailServer,
} from "./support/web-owners.js";

describe("the web area for account owners: signing in, passwords and sessions", () => {
  let web: WebArea;
  let smtp: LocalSmtpServer;
  let close: () => Promise<void>;
  const prisma = () => web.api.resources.database.prisma;

  beforeAll(async () => {
    ({ web, smtp, close } = await openWebAreaWithMailServer());
  });
  afterAll(() => close());

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
});
