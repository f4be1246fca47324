import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { expect } from "vitest";
import { SignInLinksService } from "../../apps/api/src/account-area/sign-in-links.service.js";
import { launchChromium } from "./chromium.mjs";
import { readJson } from "./json.js";
import { startTestApi, type TestApi } from "./test-api.js";

export const PASSWORD = "correct horse battery";

export interface InvitedAccount {
  apiKey: string;
  accountId: string;
  apiKeyId: string;
  email: string;
  /** The one-time set-password link on the test server's address. */
  link: string;
}

export interface SignedInOwner extends InvitedAccount {
  page: Page;
  /** The session's cookie header and CSRF token, for calls the test makes itself. */
  cookie: string;
  csrfToken: string;
}

export interface WebArea {
  api: TestApi;
  /** A page in a fresh browser context: its own cookies. */
  newPage(): Promise<Page>;
  /** An account as the admin CLI invites it. */
  invite(overrides?: { isAdmin?: boolean }): Promise<InvitedAccount>;
  acceptInvitation(page: Page, link: string): Promise<void>;
  signIn(page: Page, email: string, password?: string): Promise<void>;
  signedInOwner(overrides?: { isAdmin?: boolean }): Promise<SignedInOwner>;
  /** Asserts that each change is refused (403) when sent with the session's cookie but not its CSRF token. */
  expectRefusedWithoutCsrfToken(
    owner: Pick<SignedInOwner, "cookie">,
    changes: [method: string, path: string, json?: unknown][],
  ): Promise<void>;
  /** The session's own routes, called as the page calls them (cookie and CSRF token). */
  sessionRequest(
    owner: Pick<SignedInOwner, "cookie" | "csrfToken">,
    path: string,
    init?: { method?: string; json?: unknown },
  ): Promise<Response>;
  close(): Promise<void>;
}

/**
 * One browser for all the web-area files a test worker runs (a launch costs about 2 s of CPU), launched
 * again if it went away; each file has contexts of its own, closed with it.
 */
let sharedBrowser: Promise<Browser> | undefined;
async function browserOfThisWorker(): Promise<Browser> {
  sharedBrowser ??= launchChromium();
  const browser = await sharedBrowser;
  if (browser.isConnected()) return browser;
  sharedBrowser = undefined;
  return browserOfThisWorker();
}

/** The real API (see startTestApi) and Debian's chromium, with the steps every web-area spec repeats. */
export async function openWebArea(options: Parameters<typeof startTestApi>[0] = {}): Promise<WebArea> {
  const [api, browser] = await Promise.all([startTestApi(options), browserOfThisWorker()]);
  const contexts: BrowserContext[] = [];
  let invitations = 0;

  async function newPage(): Promise<Page> {
    const context = await browser.newContext();
    contexts.push(context);
    return context.newPage();
  }

  async function invite(overrides: { isAdmin?: boolean } = {}): Promise<InvitedAccount> {
    invitations += 1;
    const email = `owner${invitations}@example.test`;
    const created = await api.createAccount({ email });
    if (overrides.isAdmin) {
      await api.resources.database.prisma.account.update({ where: { email }, data: { isAdmin: true } });
    }
    const link = new URL((await api.app.get(SignInLinksService).create(email, "set-password")).url);
    return { ...created, email, link: `${api.baseUrl}${link.pathname}${link.hash}` };
  }

  async function acceptInvitation(page: Page, link: string): Promise<void> {
    await page.goto(link);
    await page.getByLabel("New password").fill(PASSWORD);
    await page.getByLabel("The same password again").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
  }

  async function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
    await page.goto(api.baseUrl);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
  }

  async function signedInOwner(overrides: { isAdmin?: boolean } = {}): Promise<SignedInOwner> {
    const owner = await invite(overrides);
    const page = await newPage();
    await acceptInvitation(page, owner.link);
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const session = await readJson(await fetch(`${api.baseUrl}/account/session`, { headers: { cookie } }));
    return { ...owner, page, cookie, csrfToken: session.csrfToken as string };
  }

  function sessionRequest(
    { cookie, csrfToken }: Pick<SignedInOwner, "cookie" | "csrfToken">,
    path: string,
    { method = "GET", json }: { method?: string; json?: unknown } = {},
  ): Promise<Response> {
    return api.request(path, { method, json, headers: { cookie, "x-csrf-token": csrfToken } });
  }

  async function expectRefusedWithoutCsrfToken(
    { cookie }: Pick<SignedInOwner, "cookie">,
    changes: [method: string, path: string, json?: unknown][],
  ): Promise<void> {
    for (const [method, path, json] of changes) {
      const refused = await sessionRequest({ cookie, csrfToken: "" }, path, { method, json });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(await readJson(refused)).toMatchObject({
        message: ["x-csrf-token is missing or does not match the session"],
      });
    }
  }

  return {
    api,
    newPage,
    invite,
    acceptInvitation,
    signIn,
    signedInOwner,
    sessionRequest,
    expectRefusedWithoutCsrfToken,
    async close() {
      await Promise.all(contexts.map((context) => context.close()));
      await api.close();
    },
  };
}

/** Deletes what a card shows with its Delete button, answering the question it asks with `confirmation`. */
export async function deleteWithConfirmation(card: Locator, confirmation: string): Promise<void> {
  await card.getByRole("button", { name: "Delete" }).click();
  await card.getByRole("button", { name: confirmation }).click();
}

/** What a control's aria-describedby points at (its hint, its problems), as a screen reader reads it. */
export async function descriptionOf(control: Locator): Promise<string> {
  const ids = (await control.getAttribute("aria-describedby"))?.split(" ") ?? [];
  const texts = await Promise.all(ids.map((id) => control.page().locator(`[id="${id}"]`).textContent()));
  return texts.join(" ");
}

/** A phone's width (an iPhone 14's CSS pixels). */
export const PHONE_VIEWPORT = { width: 390, height: 844 };

/** How far the page is wider than its viewport, in CSS pixels: 0 when nothing makes the reader scroll sideways. */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

/** A search one word over the schema's limit, short enough for the search field: page and route refuse it. */
export const SIXTY_FIVE_WORDS = Array.from({ length: 65 }, (_, index) => `word${index}`).join(" ");
