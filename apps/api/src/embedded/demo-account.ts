import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AccountsService } from "../accounts/accounts.service.js";
import type { ApiKeyAuthService } from "../accounts/api-key-auth.service.js";

export const DEMO_EMAIL = "demo@imagehub.local";
const DEMO_CREDITS = { f_images: 100, f_images_print: 25 };

export interface DemoAccount {
  email: string;
  apiKey: string;
}

/**
 * The embedded first run creates a demo account and keeps its key in `<DATA_DIR>/demo-account.json`
 * (the database holds only its hash), so that later runs can print it again.
 */
export async function ensureDemoAccount(
  dataDir: string,
  accounts: AccountsService,
  auth: ApiKeyAuthService,
): Promise<DemoAccount> {
  const file = join(dataDir, "demo-account.json");
  const saved = await readSaved(file);
  if (saved && (await isLive(saved.apiKey, auth))) return saved;
  // The key file may be gone while the account stays: give the account a new key then.
  const { key } = (await accounts.hasAccount(DEMO_EMAIL))
    ? await accounts.createApiKey({ email: DEMO_EMAIL, name: "demo", actor: "system" })
    : await accounts.createAccountWithKey({
        email: DEMO_EMAIL,
        name: "Demo",
        plan: "standard",
        credits: DEMO_CREDITS,
        renewsMonthly: true,
        keyName: "demo",
        actor: "system",
      });
  const demo = { email: DEMO_EMAIL, apiKey: key };
  await writeFile(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return demo;
}

async function readSaved(file: string): Promise<DemoAccount | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as DemoAccount;
  } catch {
    return undefined;
  }
}

async function isLive(apiKey: string, auth: ApiKeyAuthService): Promise<boolean> {
  return auth.authenticate(apiKey, null).then(
    () => true,
    () => false,
  );
}
