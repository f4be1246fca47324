import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountsService } from "../apps/api/src/accounts/accounts.service.js";
import { seriousAccessibilityViolations } from "./support/browser.js";
import { readJson } from "./support/json.js";
import { until } from "./support/until.js";
import { PHONE_VIEWPORT, SIXTY_FIVE_WORDS, sidewaysOverflow, type WebArea } from "./support/web-area.js";
import { openWebAreaWithMailServer, RAW_TIMESTAMP } from "./support/web-owners.js";

/** The names of the tables wider than their box (the reader must scroll sideways to see them whole). */
const CUT_OFF_TABLES = `[...document.querySelectorAll("figure.table-wrap")]
  .filter((box) => box.scrollWidth > box.clientWidth)
  .map((box) => box.getAttribute("aria-label"))`;

describe("the web area for account owners: keys, words, titles, phones and accessibility", () => {
  let web: WebArea;
  let close: () => Promise<void>;
  const prisma = () => web.api.resources.database.prisma;

  beforeAll(async () => {
    ({ web, close } = await openWebAreaWithMailServer());
  });
  afterAll(() => close());

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
