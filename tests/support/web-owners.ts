import type { Page } from "playwright-core";
import { SignInLinksService } from "../../apps/api/src/account-area/sign-in-links.service.js";
import { type LocalSmtpServer, startSmtpServer } from "./smtp-server.js";
import { openWebArea, type WebArea } from "./web-area.js";

/** The password the owner specs set in place of the first one. */
export const NEW_PASSWORD = "a brand new passphrase";

/** An ISO 8601 timestamp as the API writes them: never what a reader should see. */
export const RAW_TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** A one-time link of the test server for the account, e.g. the embedded demo account's sign-in link. */
export async function linkFor(
  web: WebArea,
  email: string,
  purpose: "sign-in" | "set-password",
): Promise<string> {
  const link = new URL((await web.api.app.get(SignInLinksService).create(email, purpose)).url);
  return `${web.api.baseUrl}${link.pathname}${link.hash}`;
}

/** The text of the page's main heading. */
export function mainHeading(page: Page): Promise<string | null> {
  return page.locator("h1").textContent();
}

export async function expectSignedOut(page: Page): Promise<void> {
  await page.reload();
  await page.getByRole("heading", { name: "Sign in to imagehub" }).waitFor();
}

/** The web area of a test server that mails through a local SMTP server (invitations, reset links). */
export async function openWebAreaWithMailServer(): Promise<{
  web: WebArea;
  smtp: LocalSmtpServer;
  close(): Promise<void>;
}> {
  const smtp = await startSmtpServer();
  const web = await openWebArea({
    env: { SMTP_URL: smtp.url, SMTP_FROM: "imagehub <noreply@example.test>" },
  });
  return {
    web,
    smtp,
    close: async () => {
      await web.close();
      await smtp.close();
    },
  };
}
