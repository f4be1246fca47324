// Screenshots of the web area for the README: `node scripts/web-screenshots.mjs <one-time sign-in link>`,
// against a running server (the embedded start prints the link as "Demo sign-in:"). Writes docs/web-*.png.
import { mkdir } from "node:fs/promises";
import { chromium } from "playwright-core";

const link = process.argv[2];
if (!link) throw new Error("usage: node scripts/web-screenshots.mjs <one-time sign-in link>");
const base = new URL(link).origin;
const out = new URL("../docs/", import.meta.url);
await mkdir(out, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
  ],
});
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
  await page.getByRole("row", { name: /laptop/ }).waitFor();
  await page.screenshot({ path: new URL("web-api-keys.png", out).pathname, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: new URL("web-api-keys-phone.png", out).pathname, fullPage: true });
} finally {
  await browser.close();
}
