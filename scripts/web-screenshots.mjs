// Screenshots of the web area for docs/web-area.md: `node scripts/web-screenshots.mjs <one-time sign-in link>
// [<admin invitation link>]`, against a running server (the embedded start prints the sign-in link as "Demo
// sign-in:"; `npm run admin -- account invite --email … --admin` prints an admin's). Writes docs/web-*.png.
// The webhooks page's webhook posts to a receiver this script runs on 127.0.0.1, which the server reaches
// only when started with WEBHOOK_ALLOW_HTTP=true WEBHOOK_ALLOW_PRIVATE=true.
import { once } from "node:events";
import { mkdir } from "node:fs/promises";
import { createServer } from "node:http";
import { launchChromium } from "../tests/support/chromium.mjs";

// A function, not a string: the page's Content-Security-Policy refuses to evaluate strings.
// It runs in the page, whose `document` this script's types (Node's) do not know.
/** @typedef {{ document: { images: Iterable<{ complete: boolean; naturalWidth: number }> } }} PageGlobals */
const areImagesLoaded = () =>
  [.../** @type {PageGlobals} */ (/** @type {unknown} */ (globalThis)).document.images].every(
    (image) => image.complete && image.naturalWidth > 0,
  );

const [link, adminLink] = process.argv.slice(2);
if (!link) throw new Error("usage: node scripts/web-screenshots.mjs <one-time sign-in link>");
const base = new URL(link).origin;
const out = new URL("../docs/", import.meta.url);
await mkdir(out, { recursive: true });
const receiver = createServer((request, response) => request.resume().on("end", () => response.end()));
receiver.listen(0, "127.0.0.1");
await once(receiver, "listening");
const receiverUrl = `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (receiver.address()).port}/hooks`;
const browser = await launchChromium();
try {
  const signedOut = await browser.newPage({ viewport: { width: 1100, height: 640 } });
  await signedOut.goto(base);
  await signedOut.getByRole("heading", { name: "Sign in to imagehub" }).waitFor();
  await signedOut.screenshot({ path: new URL("web-sign-in.png", out).pathname });

  const context = await browser.newContext({ viewport: { width: 1100, height: 640 } });
  const page = await context.newPage();
  await page.goto(link);
  await page.getByRole("heading", { name: "Your account" }).waitFor();
  await page.screenshot({ path: new URL("web-account.png", out).pathname });
  await page.goto(`${base}/keys`);
  await page.getByLabel("Name of the new key").fill("laptop");
  await page.getByRole("button", { name: "Create key" }).click();
  await page
    .getByRole("row", { name: /laptop/ })
    .first()
    .waitFor();
  await page.screenshot({ path: new URL("web-api-keys.png", out).pathname, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: new URL("web-api-keys-phone.png", out).pathname, fullPage: true });

  // Catalogue: an image bought, its download links; then the ledger that shows it.
  await page.setViewportSize({ width: 1100, height: 640 });
  await page.goto(`${base}/catalogue`);
  const buy = page.getByRole("button", { name: /^Buy / }).nth(1);
  const title = ((await buy.textContent()) ?? "").replace(/^Buy /, "").replace(/ \(.*\)$/, "");
  await buy.click();
  await page.getByRole("button", { name: `Yes, buy ${title}` }).click();
  await page.getByRole("link", { name: `Download ${title}: Full size` }).waitFor();
  await page.getByRole("table", { name: "Your images" }).waitFor();
  // Previews load lazily and are rendered on first display: scroll them all in and wait for them.
  await page.mouse.wheel(0, 10_000);
  await page.waitForFunction(areImagesLoaded);
  await page.mouse.wheel(0, -10_000);
  await page.screenshot({ path: new URL("web-catalogue.png", out).pathname, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: new URL("web-catalogue-phone.png", out).pathname });
  await page.setViewportSize({ width: 1100, height: 640 });
  await page.getByRole("link", { name: title, exact: true }).click();
  await page.getByRole("heading", { name: title, level: 1 }).waitFor();
  await page.waitForFunction(areImagesLoaded);
  await page.screenshot({ path: new URL("web-image.png", out).pathname, fullPage: true });
  await page.goto(`${base}/credits`);
  await page
    .getByRole("row", { name: /Image bought/ })
    .first()
    .waitFor();
  await page.screenshot({ path: new URL("web-credits.png", out).pathname, fullPage: true });

  if (adminLink) {
    const admin = await (await browser.newContext({ viewport: { width: 1100, height: 640 } })).newPage();
    await admin.goto(adminLink);
    await admin.getByLabel("New password").fill("screenshots only");
    await admin.getByLabel("The same password again").fill("screenshots only");
    await admin.getByRole("button", { name: "Set password and sign in" }).click();
    await admin.getByRole("link", { name: "Admin" }).click();
    await admin
      .getByRole("button", { name: /^Grant credits to / })
      .first()
      .click();
    await admin.screenshot({ path: new URL("web-admin.png", out).pathname, fullPage: true });
    await admin.setViewportSize({ width: 390, height: 844 });
    await admin.screenshot({ path: new URL("web-admin-phone.png", out).pathname });
  }

  await page.setViewportSize({ width: 1100, height: 640 });
  await page.goto(`${base}/generations`);
  await page.getByLabel("Name", { exact: true }).fill("Lighthouse at dusk");
  await page.getByLabel("Description", { exact: true }).fill("a lighthouse on a cliff above a stormy sea");
  await page.getByText(/^Parameters: /).click();
  await page.getByLabel("Format", { exact: true }).selectOption("16:9");
  await page.getByLabel("Weather", { exact: true }).selectOption("foggy");
  await page.getByLabel("Time of day", { exact: true }).selectOption("sunset");
  await page.getByLabel("Stylize", { exact: true }).fill("250");
  await page.getByRole("button", { name: "Generate 4 images" }).click();
  const generation = page.getByRole("article", { name: "Lighthouse at dusk" }).first();
  await generation.getByTestId("generation-status").getByText("Done").waitFor({ timeout: 120_000 });
  await generation.getByRole("button", { name: /^Buy Lighthouse at dusk, image 1 / }).click();
  await generation.getByRole("button", { name: /^Yes, buy Lighthouse at dusk, image 1 / }).click();
  await generation.getByRole("link", { name: "Download Lighthouse at dusk, image 1: Full size" }).waitFor();
  await page.screenshot({ path: new URL("web-generations.png", out).pathname, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await generation.scrollIntoViewIfNeeded();
  await page.screenshot({ path: new URL("web-generations-phone.png", out).pathname });

  await page.setViewportSize({ width: 1100, height: 640 });
  await page.goto(`${base}/webhooks`);
  await page.getByLabel("Endpoint URL").fill(receiverUrl);
  await page.getByRole("checkbox", { name: /^test/ }).check();
  await page.getByRole("button", { name: "Create webhook" }).click();
  const webhook = page.getByRole("article", { name: receiverUrl });
  await webhook.getByRole("button", { name: "Send a test event" }).click();
  await webhook.getByRole("row").nth(1).waitFor({ timeout: 30_000 });
  await page.screenshot({ path: new URL("web-webhooks.png", out).pathname, fullPage: true });
} finally {
  await browser.close();
  receiver.close();
}
