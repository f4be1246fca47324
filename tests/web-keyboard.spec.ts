import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJson } from "./support/json.js";
import { openWebArea, PASSWORD, type WebArea } from "./support/web-area.js";

/**
 * The focused element: its accessible name as a reader hears it, and whether its focus can be seen. A string,
 * evaluated in the page: these tests compile without the DOM's types.
 */
const FOCUSED = `(() => {
  const element = document.activeElement;
  if (!element) return { tag: "none", name: "", isFocusVisible: false };
  const style = getComputedStyle(element);
  const name = element.getAttribute("aria-label") ?? element.labels?.[0]?.textContent ?? element.textContent ?? "";
  return {
    tag: element.tagName.toLowerCase(),
    name: name.trim(),
    isFocusVisible:
      element.matches(":focus-visible") &&
      ((style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) > 0) || style.boxShadow !== "none"),
  };
})()`;

function focused(page: Page): Promise<{ tag: string; name: string; isFocusVisible: boolean }> {
  return page.evaluate(FOCUSED);
}

/** Presses Tab until the control named `name` has focus; every stop on the way must show its focus. */
async function tabTo(page: Page, name: string | RegExp, maxStops = 40): Promise<void> {
  for (let stop = 0; stop < maxStops; stop++) {
    await page.keyboard.press("Tab");
    const current = await focused(page);
    expect(current.isFocusVisible, `focus visible on <${current.tag}> "${current.name}"`).toBe(true);
    if (typeof name === "string" ? current.name === name : name.test(current.name)) return;
  }
  throw new Error(`no control named ${name} within ${maxStops} Tab presses`);
}

describe("the web area by keyboard alone", () => {
  let web: WebArea;

  beforeAll(async () => {
    web = await openWebArea();
  });
  afterAll(async () => {
    await web?.close();
  });

  it("signs in, creates an API key, copies it, and revokes it with Tab, Enter, Space and Escape", async () => {
    const owner = await web.invite();
    await web.acceptInvitation(await web.newPage(), owner.link);
    const page = await web.newPage();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.goto(web.api.baseUrl);
    await page.getByRole("heading", { name: "Sign in to imagehub" }).waitFor();

    await tabTo(page, "Email");
    await page.keyboard.type(owner.email);
    await tabTo(page, "Password");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Your account" }).waitFor();

    await tabTo(page, "API keys");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await tabTo(page, "Name of the new key");
    await page.keyboard.type("keyboard");
    await page.keyboard.press("Enter");
    const secret = page.getByTestId("secret");
    await secret.waitFor();
    await tabTo(page, "Copy");
    await page.keyboard.press("Space");
    await expect(page.evaluate("navigator.clipboard.readText()")).resolves.toBe(await secret.textContent());

    await tabTo(page, "Revoke keyboard");
    await page.keyboard.press("Enter");
    // The question takes focus; Escape closes it and gives focus back to the button that asked it.
    await expect(focused(page)).resolves.toMatchObject({
      name: "Yes, revoke keyboard",
      isFocusVisible: true,
    });
    await page.keyboard.press("Escape");
    await expect(focused(page)).resolves.toMatchObject({ name: "Revoke keyboard", isFocusVisible: true });
    await page.keyboard.press("Space");
    await expect(focused(page)).resolves.toMatchObject({ name: "Yes, revoke keyboard" });
    await page.keyboard.press("Enter");
    // A revoked key's secret is shown no more, and the key leaves the table of live ones.
    await secret.waitFor({ state: "detached" });
    await page.getByText("1 live key", { exact: true }).waitFor();
    // Focus stays in the page's content, not lost to the document's body.
    expect((await focused(page)).tag).not.toBe("body");

    const { apiKeys } = await readJson(
      await web.api.request("/account/api-keys", { headers: { cookie: await cookieOf(page) } }),
    );
    expect(apiKeys).toContainEqual(
      expect.objectContaining({ name: "keyboard", revokedAt: expect.any(String) }),
    );
  });
});

async function cookieOf(page: Page): Promise<string> {
  return (await page.context().cookies()).map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");
}
