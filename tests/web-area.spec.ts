import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousAccessibilityViolations } from "./support/browser.js";
import { readJson } from "./support/json.js";
import { openWebArea, type WebArea } from "./support/web-area.js";

describe("the account web area, in a browser", () => {
  let web: WebArea;
  let api: WebArea["api"];

  beforeAll(async () => {
    web = await openWebArea({ env: { SIGN_IN_FREE_FAILURES: "3", SIGN_IN_ATTEMPTS_PER_MINUTE: "40" } });
    api = web.api;
  });
  afterAll(async () => {
    await web?.close();
  });

  it("accepts an invitation: the password is set, the session cookie is HTTP-only and SameSite=Lax", async () => {
    const owner = await web.invite();
    const page = await web.newPage();
    await web.acceptInvitation(page, owner.link);
    await expect(page.getByText(owner.email).first().isVisible()).resolves.toBe(true);
    // The token left the address bar at once.
    expect(page.url()).toBe(`${api.baseUrl}/`);
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({
      name: "imagehub_session",
      httpOnly: true,
      sameSite: "Lax",
      secure: false,
    });

    const again = await web.newPage();
    await again.goto(owner.link);
    await again.getByLabel("New password").fill("another password");
    await again.getByLabel("The same password again").fill("another password");
    await again.getByRole("button", { name: "Set password and sign in" }).click();
    await expect(again.getByRole("alert").textContent()).resolves.toContain("already used");
  });

  it("refuses a wrong password, and makes the next attempt wait after repeated failures", async () => {
    const owner = await web.invite();
    await web.acceptInvitation(await web.newPage(), owner.link);
    const page = await web.newPage();
    await web.signIn(page, owner.email, "not the password");
    await expect(page.getByRole("alert").textContent()).resolves.toBe("wrong email or password");
    for (let attempt = 2; attempt <= 3; attempt++) {
      await web.signIn(page, owner.email, `wrong ${attempt}`);
      // Answered before the next attempt loads the page again: a navigation can cancel a sign-in in flight,
      // and the failure would then go uncounted.
      await page.getByRole("alert").filter({ hasText: "wrong email or password" }).waitFor();
    }
    await web.signIn(page, owner.email);
    await expect(page.getByRole("alert").textContent()).resolves.toContain("try again in");
    expect(await readJson(await fetch(`${api.baseUrl}/account/session`))).toMatchObject({ statusCode: 401 });
  });

  it("refuses a state change that lacks the session's CSRF token", async () => {
    const { cookie, csrfToken } = await web.signedInOwner();
    const signOut = (headers: Record<string, string>) =>
      fetch(`${api.baseUrl}/account/sign-out`, { method: "POST", headers: { cookie, ...headers } });
    const refused = await signOut({});
    expect(refused.status).toBe(403);
    expect(await readJson(refused)).toMatchObject({
      message: ["x-csrf-token is missing or does not match the session"],
    });
    expect((await signOut({ "x-csrf-token": `${csrfToken}x` })).status).toBe(403);
    // Signed-out routes take JSON only: a cross-site form cannot post it.
    const form = await fetch(`${api.baseUrl}/account/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=a%40example.test&password=x",
    });
    expect(form.status).toBe(415);
    expect((await signOut({ "x-csrf-token": csrfToken })).status).toBe(200);
    expect((await fetch(`${api.baseUrl}/account/session`, { headers: { cookie } })).status).toBe(401);
  });

  it("signs out everywhere: the account's other browsers are signed out too", async () => {
    const owner = await web.signedInOwner();
    const other = await web.newPage();
    await web.signIn(other, owner.email);
    await other.getByRole("heading", { name: "Your account" }).waitFor();
    await owner.page.getByRole("button", { name: "Sign out everywhere" }).click();
    await owner.page.getByRole("heading", { name: "Sign in to imagehub" }).waitFor();
    await other.reload();
    await other.getByRole("heading", { name: "Sign in to imagehub" }).waitFor();
  });

  it("creates an API key shown once, which the API accepts until it is revoked on the page", async () => {
    const owner = await web.signedInOwner();
    const { page } = owner;
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name of the new key").fill("laptop");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("secret").textContent()) ?? "";
    const check = () => fetch(`${api.baseUrl}/v1/api-keys/check`, { headers: { "api-key": key } });
    expect(await readJson(await check())).toMatchObject({ email: owner.email });
    await page
      .getByRole("row", { name: /laptop/ })
      .getByText("ih_")
      .waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Revoke laptop" }).click();
    await page.getByRole("button", { name: "Yes, revoke laptop" }).click();
    await page.getByLabel("Show the 1 revoked key").check();
    await page
      .getByRole("row", { name: /laptop/ })
      .getByText("revoked")
      .waitFor();
    const refused = await check();
    expect(refused.status).toBe(401);
    expect(await readJson(refused)).toMatchObject({ message: ["api-key has been revoked"] });
    // The page writes the audit rows the admin CLI writes, naming the session.
    const audit = await api.resources.database.prisma.auditLog.findMany({
      where: { account: { email: owner.email }, action: { in: ["api_key.created", "api_key.revoked"] } },
    });
    expect(
      audit
        .filter((row) => row.actor.startsWith("session:"))
        .map((row) => row.action)
        .sort(),
    ).toEqual(["api_key.created", "api_key.revoked"]);
  });

  it("never shows or changes another account's keys", async () => {
    const first = await web.signedInOwner();
    const second = await web.signedInOwner();
    await second.page.goto(`${api.baseUrl}/keys`);
    await second.page.getByRole("table").waitFor();
    expect(await second.page.getByText(first.email).count()).toBe(0);
    expect(await second.page.getByRole("row").count()).toBe(2);
    const revoke = await fetch(`${api.baseUrl}/account/api-keys/${first.apiKeyId}`, {
      method: "DELETE",
      headers: { cookie: second.cookie, "x-csrf-token": second.csrfToken },
    });
    expect(revoke.status).toBe(404);
    expect(
      (await fetch(`${api.baseUrl}/v1/api-keys/check`, { headers: { "api-key": first.apiKey } })).status,
    ).toBe(200);
  });

  it("serves the app's pages under / and leaves the API's paths to the API", async () => {
    const page = await fetch(`${api.baseUrl}/keys`);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
    const asset = await fetch(`${api.baseUrl}${script}`);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    for (const path of ["/v1/nothing-here", "/account/nothing-here", "/admin/nothing-here"]) {
      const answer = await fetch(`${api.baseUrl}${path}`);
      expect(answer.status).toBe(404);
      expect(await readJson(answer)).toMatchObject({ statusCode: 404, message: [`Cannot GET ${path}`] });
    }
  });

  it("has no serious accessibility violation on the sign-in, invitation and account pages", async () => {
    const owner = await web.invite();
    const page = await web.newPage();
    await page.goto(api.baseUrl);
    await page.getByRole("heading", { name: "Sign in to imagehub" }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.goto(owner.link);
    await page.getByRole("heading", { name: "Welcome to imagehub" }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await web.acceptInvitation(page, owner.link);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it("limits sign-in attempts per address, answering when to try again", async () => {
    let answer: Response | undefined;
    for (let attempt = 0; attempt < 45 && answer?.status !== 429; attempt++) {
      answer = await fetch(`${api.baseUrl}/account/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "nobody@example.test", password: "guess" }),
      });
    }
    expect(answer?.status).toBe(429);
    expect(Number(answer?.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
