import type { Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousAccessibilityViolations } from "./support/browser.js";
import { readJson } from "./support/json.js";
import { until } from "./support/until.js";
import {
  deleteWithConfirmation,
  descriptionOf,
  openWebArea,
  PHONE_VIEWPORT,
  type SignedInOwner,
  sidewaysOverflow,
  type WebArea,
} from "./support/web-area.js";

/** Long enough for a generation to stay a while in Processing, short enough for the suite. */
const IMAGE_DELAY_MS = "300";

describe("the generations page, in a browser", () => {
  let web: WebArea;

  beforeAll(async () => {
    web = await openWebArea({ env: { PROCEDURAL_IMAGE_DELAY_MS: IMAGE_DELAY_MS } });
  });
  afterAll(async () => {
    await web?.close();
  });

  async function generationsOf(owner: SignedInOwner) {
    return (await readJson(await web.sessionRequest(owner, "/account/generations"))).prints;
  }

  async function creditOf(owner: SignedInOwner, type: string): Promise<number> {
    const { credits } = await readJson(await web.api.request("/v1/credit", { apiKey: owner.apiKey }));
    return credits.find((credit: { type: string }) => credit.type === type).credit;
  }

  async function ledgerReasons(owner: SignedInOwner, reference: string): Promise<string[]> {
    const entries = await web.api.resources.database.prisma.creditLedgerEntry.findMany({
      where: { reference, bucket: { accountId: owner.accountId } },
      orderBy: { id: "asc" },
    });
    return entries.map((entry) => `${entry.reason} ${entry.amount}`);
  }

  /** Fills the page's form in simple mode and submits it; answers the new generation's card. */
  async function generate(
    owner: SignedInOwner,
    name: string,
    description: string,
    params: Record<string, string> = {},
  ): Promise<Locator> {
    const { page } = owner;
    await page.getByRole("link", { name: "Generations" }).click();
    await page.getByLabel("Name", { exact: true }).fill(name);
    await page.getByLabel("Description", { exact: true }).fill(description);
    if (Object.keys(params).length > 0) await page.getByText(/^Parameters: /).click();
    for (const [label, value] of Object.entries(params)) {
      const field = page.getByLabel(label, { exact: true });
      if ((await field.evaluate((element) => element.tagName)) === "SELECT") await field.selectOption(value);
      else await field.fill(value);
    }
    await page.getByRole("button", { name: "Generate 4 images" }).click();
    const card = page.getByRole("article", { name });
    await card.waitFor();
    return card;
  }

  it("runs a generation from the form to Done, its status and images arriving without a reload, and buys an image", async () => {
    const owner = await web.signedInOwner();
    const credits = await creditOf(owner, "f_images");
    const card = await generate(owner, "Lighthouse", "a lighthouse on a cliff", {
      Format: "16:9",
      Weather: "foggy",
      "Time of day": "sunset",
      Chaos: "20",
      Stylize: "250",
    });
    // A mark on the window survives only if the page is never loaded again.
    await owner.page.evaluate(() => Object.assign(globalThis, { stillTheSamePage: true }));
    await card.getByTestId("generation-status").getByText("Done").waitFor({ timeout: 30_000 });
    expect(
      await owner.page.evaluate(() => (globalThis as { stillTheSamePage?: boolean }).stillTheSamePage),
    ).toBe(true);
    const images = card.getByRole("img");
    await expect(images.count()).resolves.toBe(4);
    // Each preview loaded: the page's policy admits the API's image links.
    for (const image of await images.all()) {
      const width = image.evaluate(async (element) => {
        const loaded = element as unknown as { decode(): Promise<void>; naturalWidth: number };
        await loaded.decode();
        return loaded.naturalWidth;
      });
      await expect(width).resolves.toBeGreaterThan(0);
    }
    const [generation] = await generationsOf(owner);
    expect(generation).toMatchObject({
      name: "Lighthouse",
      status: 3,
      mode: "simple",
      params: expect.arrayContaining([
        { name: "format", value: "16:9" },
        { name: "weather", value: "foggy" },
        { name: "time", value: "sunset" },
        { name: "chaos", value: "20" },
        { name: "stylize", value: "250" },
      ]),
    });
    expect(await seriousAccessibilityViolations(owner.page)).toEqual([]);
    await owner.page.setViewportSize(PHONE_VIEWPORT);
    await expect(sidewaysOverflow(owner.page)).resolves.toBe(0);

    // The price is asked about before anything is taken.
    await card.getByRole("button", { name: /^Buy Lighthouse, image 1 \(\d+ credits?\)$/ }).click();
    expect(await creditOf(owner, "f_images")).toBe(credits);
    await card
      .getByRole("button", { name: /^Yes, buy Lighthouse, image 1 for \d+ f_images credits?$/ })
      .click();
    const download = card.getByRole("link", { name: "Download Lighthouse, image 1: Full size" });
    await download.waitFor({ timeout: 10_000 });
    const file = await fetch(`${web.api.baseUrl}${await download.getAttribute("href")}`);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/jpeg");
    const spent = credits - (await creditOf(owner, "f_images"));
    expect(spent).toBeGreaterThan(0);
    expect(await ledgerReasons(owner, generation.images[0].id)).toEqual([`purchase -${spent}`]);

    // The purchase is remembered: after a reload the image is marked owned, with its links and no Buy.
    await owner.page.reload();
    const reloaded = owner.page.getByRole("article", { name: "Lighthouse" });
    await reloaded.getByRole("link", { name: "Download Lighthouse, image 1: Full size" }).waitFor();
    await expect(reloaded.getByText("owned", { exact: true }).count()).resolves.toBe(1);
    await expect(reloaded.getByRole("button", { name: /^Buy Lighthouse, image 1 / }).count()).resolves.toBe(
      0,
    );
    await reloaded.getByRole("button", { name: /^Buy Lighthouse, image 2 / }).waitFor();
  });

  it("shows the API's own rules beside the fields, and sends nothing the API would refuse", async () => {
    const owner = await web.signedInOwner();
    const { page } = owner;
    await page.getByRole("link", { name: "Generations" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Too chaotic");
    await page.getByLabel("Description", { exact: true }).fill("a harbour --ar 16:9");
    // The parameter table is folded away until asked for.
    await expect(page.getByLabel("Chaos", { exact: true }).isVisible()).resolves.toBe(false);
    await page.getByText(/^Parameters: /).click();
    await page.getByLabel("Chaos", { exact: true }).fill("150");
    await page.getByLabel("Start from image URL", { exact: true }).fill("not a link");
    await page.getByRole("button", { name: "Generate 4 images" }).click();
    const expectProblem = async (label: string, problem: RegExp) => {
      const field = page.getByLabel(label, { exact: true });
      await expect(field.getAttribute("aria-invalid"), label).resolves.toBe("true");
      await expect(descriptionOf(field)).resolves.toMatch(problem);
    };
    await expectProblem("Chaos", /Chaos: .*100/);
    await expectProblem("Start from image URL", /must be an http or https URL/);
    // As the API, the prompt's own rules are checked once the fields are well-formed.
    await page.getByLabel("Chaos", { exact: true }).fill("15");
    await page.getByLabel("Start from image URL", { exact: true }).fill("");
    await page.getByRole("button", { name: "Generate 4 images" }).click();
    await expectProblem("Description", /--ar/);
    await expect(page.getByLabel("Chaos", { exact: true }).getAttribute("aria-invalid")).resolves.toBeNull();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(await generationsOf(owner)).toEqual([]);

    // Advanced mode takes the flags in the command, and no parameter table.
    await page.getByLabel("Advanced: a full Midjourney command with its flags").check();
    await expect(page.getByLabel("Chaos", { exact: true }).count()).resolves.toBe(0);
    await page.getByLabel("Command", { exact: true }).fill("a harbour at dawn --ar 16:9 --chaos 20");
    await page.getByRole("button", { name: "Generate 4 images" }).click();
    await page.getByRole("article", { name: "Too chaotic" }).waitFor();
    expect(await generationsOf(owner)).toMatchObject([
      { name: "Too chaotic", mode: "advanced", prompt: "a harbour at dawn --ar 16:9 --chaos 20", params: [] },
    ]);
  });

  it("opens an image full size, varies it and asks again: each a new generation of the same request", async () => {
    const owner = await web.signedInOwner();
    const card = await generate(owner, "Lake", "a calm lake", { Format: "16:9" });
    await card.getByTestId("generation-status").getByText("Done").waitFor({ timeout: 30_000 });
    const [original] = await generationsOf(owner);
    const [first, second] = original.images;
    expect(await card.getByRole("link", { name: "Full size: Lake, image 1" }).getAttribute("href")).toBe(
      `/v1/images/full/${first.id}.jpg`,
    );

    await card.getByRole("button", { name: "Vary Lake, image 2" }).click();
    await until(async () => (await generationsOf(owner)).length === 2, { what: "the variation" });
    const [variation] = await generationsOf(owner);
    expect(variation).toMatchObject({ name: "Lake", prompt: "a calm lake", mode: "simple" });
    expect(variation.params).toEqual(
      expect.arrayContaining([
        { name: "format", value: "16:9" },
        { name: "fromImageUrl", value: second.url },
      ]),
    );

    // The original is the last card: the new generations come first.
    await owner.page
      .getByRole("article", { name: "Lake" })
      .last()
      .getByRole("button", { name: "Again" })
      .click();
    await until(async () => (await generationsOf(owner)).length === 3, {
      what: "the generation asked again",
    });
    const [again] = await generationsOf(owner);
    expect(again).toMatchObject({ name: "Lake", mode: "advanced" });
    expect(again.prompt).toMatch(/^a calm lake.* --ar 16:9 .*--seed \d+/);
  });

  it("retries a generation in Error, and deletes a generation after confirmation", async () => {
    const owner = await web.signedInOwner();
    // A refused term ends the generation in Error, its held credit given back.
    const card = await generate(owner, "Refused", "a gore scene");
    await card.getByText("Error: description not accepted").waitFor({ timeout: 30_000 });
    const [generation] = await generationsOf(owner);
    expect(await ledgerReasons(owner, generation.id)).toEqual(["generation -1", "refund 1"]);

    await card.getByRole("button", { name: "Retry" }).click();
    // Retried: a credit held again, then given back again when it ends in Error as before.
    await until(async () => (await ledgerReasons(owner, generation.id)).length === 4, {
      what: "the retry's hold and refund",
    });
    await card.getByText("Error: description not accepted").waitFor({ timeout: 30_000 });
    expect(await ledgerReasons(owner, generation.id)).toEqual([
      "generation -1",
      "refund 1",
      "generation -1",
      "refund 1",
    ]);

    await deleteWithConfirmation(card, "Yes, delete Refused");
    await owner.page.getByText("No generation yet.").waitFor();
    expect(await generationsOf(owner)).toEqual([]);
  });

  it("refuses every change on the generation routes without the session's CSRF token", async () => {
    const owner = await web.signedInOwner();
    const body = { name: "Forged", prompt: "a forged request", mode: "simple" };
    const created = await readJson(
      await web.sessionRequest(owner, "/account/generations", { method: "POST", json: body }),
    );
    await web.expectRefusedWithoutCsrfToken(owner, [
      ["POST", "/account/generations", body],
      ["POST", `/account/generations/${created.id}/retry`, undefined],
      ["DELETE", "/account/generations", { printIds: [created.id] }],
    ]);
    expect(await generationsOf(owner)).toMatchObject([{ id: created.id, name: "Forged" }]);
  });

  it("never shows or reaches another account's generations", async () => {
    const first = await web.signedInOwner();
    const second = await web.signedInOwner();
    const card = await generate(first, "Private", "a private garden");
    await card.getByTestId("generation-status").getByText("Done").waitFor({ timeout: 30_000 });
    const [generation] = await generationsOf(first);

    await second.page.getByRole("link", { name: "Generations" }).click();
    await second.page.getByText("No generation yet.").waitFor();
    expect(await second.page.getByText("Private").count()).toBe(0);
    const retry = await web.sessionRequest(second, `/account/generations/${generation.id}/retry`, {
      method: "POST",
    });
    expect(retry.status).toBe(404);
    expect(await readJson(retry)).toMatchObject({ statusCode: 404 });
    const buy = await web.sessionRequest(second, "/account/images/buy", {
      method: "POST",
      json: { id: generation.images[0].id },
    });
    expect(buy.status).toBe(404);
    expect(await readJson(buy)).toMatchObject({ message: [`no image with id ${generation.images[0].id}`] });
    // As the /v1 delete: another account's id is reported not found, and nothing is deleted.
    const removal = await web.sessionRequest(second, "/account/generations", {
      method: "DELETE",
      json: { printIds: [generation.id] },
    });
    expect(await readJson(removal)).toEqual({ deleted: [], notFound: [generation.id] });
    expect(await generationsOf(first)).toMatchObject([{ id: generation.id, status: 3 }]);
  });
});
