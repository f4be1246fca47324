import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountsService } from "../apps/api/src/accounts/accounts.service.js";
import { seriousAccessibilityViolations } from "./support/browser.js";
import { createImage, jpegSize } from "./support/images.js";
import { readJson } from "./support/json.js";
import { openWebArea, SIXTY_FIVE_WORDS, type SignedInOwner, type WebArea } from "./support/web-area.js";

const PHONE = { width: 390, height: 844 };

describe("the catalogue and credits pages, in a browser", () => {
  let area: WebArea;
  const prisma = () => area.api.resources.database.prisma;

  beforeAll(async () => {
    // The web area's search counts against the search budget, as /v1's does.
    area = await openWebArea({ env: { RATE_LIMIT_SEARCH: "25" } });
  });
  afterAll(() => area?.close());

  async function searchFor(page: Page, keywords: string): Promise<void> {
    await page.goto(`${area.api.baseUrl}/catalogue`);
    await page.getByLabel("Keywords").fill(keywords);
    await page.getByRole("button", { name: "Search", exact: true }).click();
  }

  /** Buys the image titled `title` on the catalogue page: the confirmation, then its download link. */
  async function buy(page: Page, title: string): Promise<string> {
    await page.getByRole("button", { name: `Buy ${title}` }).click();
    await page.getByRole("button", { name: `Yes, buy ${title}` }).click();
    const link = page.getByRole("link", { name: `Download ${title}: Full size` });
    await link.waitFor();
    return (await link.getAttribute("href")) ?? "";
  }

  async function ledgerOf(owner: Pick<SignedInOwner, "cookie" | "csrfToken">, query = "") {
    return readJson(await area.sessionRequest(owner, `/account/credits/ledger${query}`));
  }

  it("searches, buys an image after confirming, and its download link answers the clean JPEG", async () => {
    const image = await createImage(prisma(), { en: "Lighthouse at dusk", price: 3 });
    await createImage(prisma(), { en: "Orchard in spring" });
    const owner = await area.signedInOwner();
    await searchFor(owner.page, "lighthouse");
    await owner.page.getByText("1 images found").waitFor();
    const preview = owner.page.getByRole("img", { name: "Lighthouse at dusk" });
    // The preview loads on the page's own origin (its Content-Security-Policy allows nothing else).
    await expect
      .poll(() =>
        preview.evaluate((element) => (element as unknown as { naturalWidth: number }).naturalWidth),
      )
      .toBeGreaterThan(0);
    expect(await owner.page.getByText("Orchard in spring").count()).toBe(0);

    const href = await buy(owner.page, "Lighthouse at dusk");
    expect(href).toMatch(new RegExp(`^/v1/images/files/${image.id}/full\\.jpg\\?expires=\\d+&signature=`));
    const download = await fetch(`${area.api.baseUrl}${href}`);
    expect(download.headers.get("content-type")).toBe("image/jpeg");
    expect(await jpegSize(await download.arrayBuffer())).toEqual({ format: "jpeg", width: 768, height: 512 });
    const credits = await readJson(await area.sessionRequest(owner, "/account/credits"));
    expect(credits.credits).toContainEqual(expect.objectContaining({ type: "f_images", credit: 7 }));
  });

  it("marks owned images with their links, shows prices, and gives each image a page to buy it from", async () => {
    const heron = await createImage(prisma(), { en: "Blue heron", fr: "Héron bleu", price: 2 });
    const other = await createImage(prisma(), { en: "Grey heron", price: 2 });
    const owner = await area.signedInOwner();
    // Bought elsewhere (by the account's API key): the catalogue knows it all the same.
    const bought = await area.api.request("/v1/images/buy", {
      method: "POST",
      apiKey: owner.apiKey,
      json: { id: heron.id },
    });
    expect(bought.status).toBe(200);
    await searchFor(owner.page, "heron");
    const cards = owner.page.getByRole("list").filter({ hasText: "Blue heron" });
    const owned = cards.getByRole("listitem").filter({ hasText: "Blue heron" });
    await owned.getByText("owned", { exact: true }).waitFor();
    await owned.getByRole("link", { name: "Download Blue heron: Full size" }).waitFor();
    await expect(owned.getByRole("button", { name: /^Buy / }).count()).resolves.toBe(0);
    const notOwned = cards.getByRole("listitem").filter({ hasText: "Grey heron" });
    await notOwned.getByText("2 credits", { exact: true }).waitFor();
    await notOwned.getByRole("button", { name: "Buy Grey heron (2 credits)" }).waitFor();

    await owned.getByRole("link", { name: "Blue heron", exact: true }).click();
    await owner.page.getByRole("heading", { name: "Blue heron", level: 1 }).waitFor();
    expect(owner.page.url()).toBe(`${area.api.baseUrl}/catalogue/${heron.id}`);
    await owner.page.getByText("Héron bleu").waitFor();
    await owner.page.getByRole("link", { name: "Download Blue heron: Full size" }).waitFor();
    expect(await seriousAccessibilityViolations(owner.page)).toEqual([]);

    await owner.page.goto(`${area.api.baseUrl}/catalogue/${other.id}`);
    await owner.page.getByRole("heading", { name: "Grey heron", level: 1 }).waitFor();
    await owner.page.getByText("not bought yet").waitFor();
    await owner.page.getByRole("button", { name: "Buy Grey heron (2 credits)" }).click();
    await owner.page.getByRole("button", { name: "Yes, buy Grey heron for 2 f_images credits" }).click();
    await owner.page.getByRole("link", { name: "Download Grey heron: Full size" }).waitFor();
    const credits = await readJson(await area.sessionRequest(owner, "/account/credits"));
    expect(credits.credits).toContainEqual(expect.objectContaining({ type: "f_images", credit: 6 }));

    // Another account's generated image has no page for this one.
    const stranger = await area.signedInOwner();
    await prisma().image.update({ where: { id: other.id }, data: { ownerAccountId: stranger.accountId } });
    const hidden = await area.sessionRequest(owner, `/account/images/${other.id}`);
    expect(hidden.status).toBe(404);
  });

  it("lists the images bought with fresh links, and only the account's own", async () => {
    const image = await createImage(prisma(), { en: "Harbour crane" });
    const owner = await area.signedInOwner();
    await searchFor(owner.page, "harbour crane");
    await buy(owner.page, "Harbour crane");
    const row = owner.page.getByRole("table", { name: "Your images" }).getByRole("row").nth(1);
    const firstHref = await row
      .getByRole("link", { name: `Download ${image.id}: Full size` })
      .getAttribute("href");
    expect((await fetch(`${area.api.baseUrl}${firstHref}`)).status).toBe(200);

    const other = await area.signedInOwner();
    await other.page.goto(`${area.api.baseUrl}/catalogue`);
    await other.page.getByText("You have not bought an image yet.").waitFor();
    const theirs = await readJson(
      await area.sessionRequest(other, "/account/images/downloaded", { method: "POST", json: {} }),
    );
    expect(theirs).toEqual({ filteredResults: 0, images: [] });
    expect(
      (await ledgerOf(other)).entries.map((entry: { reference: string }) => entry.reference),
    ).not.toContain(image.id);
  });

  it("validates the search with the /v1 schema: the page and the route refuse the same", async () => {
    const owner = await area.signedInOwner();
    await owner.page.goto(`${area.api.baseUrl}/catalogue`);
    await owner.page.getByLabel("Keywords").fill(SIXTY_FIVE_WORDS);
    await owner.page.getByRole("button", { name: "Search", exact: true }).click();
    await expect(owner.page.getByRole("alert").textContent()).resolves.toBe(
      "Search must have at most 64 words.",
    );
    const refused = await area.sessionRequest(owner, "/account/images/search", {
      method: "POST",
      json: { search: SIXTY_FIVE_WORDS, limit: 500, sort: "cheapest" },
    });
    expect(refused.status).toBe(400);
    const body = await readJson(refused);
    expect(body).toMatchObject({ statusCode: 400, error: "Bad Request" });
    expect(body.message).toEqual([
      expect.stringMatching(/^limit: /),
      expect.stringMatching(/^search: must have at most 64 words/),
      expect.stringMatching(/^sort: /),
    ]);
  });

  it("shows the purchase and the buckets on the credits page, and pages through the ledger", async () => {
    const image = await createImage(prisma(), { en: "Salt marsh", price: 2 });
    const owner = await area.signedInOwner();
    await searchFor(owner.page, "salt marsh");
    await buy(owner.page, "Salt marsh");
    const accounts = area.api.app.get(AccountsService);
    for (let grant = 1; grant <= 21; grant++) {
      await accounts.grantCredits({ email: owner.email, type: "f_images_print", amount: 1, actor: "test" });
    }

    await owner.page.getByRole("link", { name: "Credits" }).click();
    const buckets = owner.page.getByRole("table", { name: "Credit buckets" });
    await buckets.getByRole("row", { name: /f_images 8 10/ }).waitFor();
    const ledger = owner.page.getByRole("table", { name: "Credit ledger" });
    // Newest first: the 21 grants fill the first page (20), the purchase is on the second.
    await ledger.getByRole("row").nth(20).waitFor();
    expect(await ledger.getByText("Image bought").count()).toBe(0);
    await owner.page.getByRole("button", { name: "Older entries" }).click();
    await ledger.getByRole("row", { name: new RegExp(`-2 Image bought ${image.id}`) }).waitFor();
    expect(await ledger.getByRole("row").count()).toBe(1 + 4); // the last grant, the purchase, 2 starting grants
    await owner.page.getByRole("button", { name: "Newer entries" }).click();
    await ledger.getByRole("row").nth(20).waitFor();

    const first = await ledgerOf(owner, "?limit=20");
    const second = await ledgerOf(owner, `?limit=20&before=${first.nextCursor}`);
    expect(second.nextCursor).toBeNull();
    const ids = [...first.entries, ...second.entries].map((entry: { id: string }) => Number(entry.id));
    expect(ids).toHaveLength(24);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect((await area.sessionRequest(owner, "/account/credits/ledger?before=abc")).status).toBe(400);
  });

  it("refuses a purchase without the session's CSRF token, debiting nothing", async () => {
    const image = await createImage(prisma(), { price: 1 });
    const owner = await area.signedInOwner();
    const refused = await area.api.request("/account/images/buy", {
      method: "POST",
      json: { id: image.id },
      headers: { cookie: owner.cookie },
    });
    expect(refused.status).toBe(403);
    expect(await readJson(refused)).toMatchObject({
      message: ["x-csrf-token is missing or does not match the session"],
    });
    expect(await prisma().purchase.count({ where: { imageId: image.id } })).toBe(0);
    const bought = await area.sessionRequest(owner, "/account/images/buy", {
      method: "POST",
      json: { id: image.id },
    });
    expect(bought.status).toBe(200);
  });

  it("counts the page's searches against the account's search budget", async () => {
    const owner = await area.signedInOwner();
    let answer: Response | undefined;
    for (let attempt = 0; attempt < 30 && answer?.status !== 429; attempt++) {
      answer = await area.sessionRequest(owner, "/account/images/search", { method: "POST", json: {} });
    }
    expect(answer?.status).toBe(429);
    expect(await readJson(answer as Response)).toMatchObject({
      message: [expect.stringContaining("per 60 s for this account")],
    });
  });

  it("has no serious accessibility violation on the catalogue and credits pages, at a phone's width too", async () => {
    await createImage(prisma(), { en: "Quiet bay" });
    const owner = await area.signedInOwner();
    for (const viewport of [{ width: 1100, height: 800 }, PHONE]) {
      await owner.page.setViewportSize(viewport);
      await searchFor(owner.page, "quiet bay");
      await owner.page.getByRole("button", { name: "Buy Quiet bay" }).waitFor();
      expect(await seriousAccessibilityViolations(owner.page)).toEqual([]);
      await owner.page.goto(`${area.api.baseUrl}/credits`);
      await owner.page.getByRole("table", { name: "Credit ledger" }).waitFor();
      expect(await seriousAccessibilityViolations(owner.page)).toEqual([]);
    }
    // Nothing wider than the phone's screen but the tables, which scroll on their own.
    expect(await owner.page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
      PHONE.width,
    );
  });
});
