import "reflect-metadata";
import { parseArgs } from "node:util";
import { type Database, openDatabase } from "@imagehub/db";
import { CREDIT_BUCKET_TYPES, type CreditBucketType, PLANS, type Plan } from "@imagehub/domain";
import { AccountAreaRepository } from "../account-area/account-area.repository.js";
import { InvitationMailRepository } from "../account-area/invitation-mail.repository.js";
import { InvitationsService } from "../account-area/invitations.service.js";
import { SignInLinksService } from "../account-area/sign-in-links.service.js";
import { AccountsRepository } from "../accounts/accounts.repository.js";
import { AccountsService, type StartingCredits } from "../accounts/accounts.service.js";
import { CatalogueRepository } from "../catalogue/catalogue.repository.js";
import { CatalogueExportService } from "../catalogue/import/catalogue-export.service.js";
import { CatalogueImportService } from "../catalogue/import/catalogue-import.service.js";
import { ImageSourcesRepository } from "../catalogue/import/image-sources.repository.js";
import { ProgressReporter } from "../catalogue/import/import-progress.js";
import { type AppConfig, ConfigError, loadConfig } from "../common/config.js";
import { refusalBodyOf } from "../common/error-body.js";
import { ACCOUNT_LIMIT_NAMES, type AccountLimitName, type AccountLimits } from "../common/rate-limits.js";
import { makeDataDirPrivate } from "../embedded/private-data-dir.js";
import { openImageStorage } from "../storage/storage.module.js";

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  account create --email E [--name N] [--plan standard|dedicated] [--credits f_images=100,f_images_print=20] [--monthly]
                                         --monthly restores the credits every month
  account invite --email E [--admin] [account create's options]
                                         a one-time link to set a password for the web area (creates
                                         the account when there is none), mailed when SMTP_URL is set;
                                         --admin opens the admin area
  key create --email E [--name N]        a new API key, shown once
  key list --email E
  key revoke --email E --id API_KEY_ID
  credits grant --email E --type BUCKET --amount N [--note TEXT]   take away with --amount=-N
  limits show --email E                  the account's limits, its own and the defaults
  limits set --email E [--search N] [--generation-create N] [--webhook-test N] [--display N] [--general N]
             [--active-generations N]    requests per rate-limit window, or generations Pending or
                                         Processing at once; 0 is unlimited, "default" goes back to the default
  catalogue import --manifest FILE.jsonl [--images DIR] [--no-images]
                                         adds or updates catalogue images, one JSON object a line (see
                                         docs/catalogue-import.md); run again, it changes only what changed.
                                         --no-images loads titles and tags alone (pictures drawn from them).
                                         Bad lines are reported and skipped: exit code 5 when any was
  catalogue export --out FILE.jsonl [--images DIR]
                                         the catalogue in the same format; --images writes stored originals

Options: --json prints machine-readable output. The database is the one the server uses
(DATABASE_URL, or the embedded one in DATA_DIR, which needs the server stopped).
Bucket types: ${CREDIT_BUCKET_TYPES.join(", ")}`;

class UsageError extends Error {}

const ACTOR = "admin";

/** Set when an import skipped lines: they are reported as they come, exit code 5. */
let skippedLines = 0;

/** Set when the mail server refused an invitation's mail: the link is printed all the same, exit code 4. */
let mailRefused: string | undefined;

async function run(argv: string[]): Promise<unknown> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      name: { type: "string" },
      plan: { type: "string", default: "standard" },
      credits: { type: "string", default: "" },
      id: { type: "string" },
      type: { type: "string" },
      amount: { type: "string" },
      note: { type: "string" },
      monthly: { type: "boolean", default: false },
      ...Object.fromEntries(ACCOUNT_LIMIT_NAMES.map((name) => [name, { type: "string" as const }])),
      admin: { type: "boolean", default: false },
      manifest: { type: "string" },
      images: { type: "string" },
      "no-images": { type: "boolean", default: false },
      out: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  const command = positionals.join(" ");
  if (values.help || !command) throw new UsageError(USAGE);
  const email = () => required(values.email, "--email");

  const config = loadConfig(process.env);
  // The admin CLI opens the embedded database too: its files stay the owner's.
  await makeDataDirPrivate(config.dataDir);
  const database = await openDatabase(config.database);
  try {
    await database.migrate();
    const accounts = new AccountsService(new AccountsRepository(database.prisma));
    const area = new AccountAreaRepository(database.prisma);
    const newAccount = () => ({
      email: email(),
      name: values.name,
      plan: oneOf(values.plan, PLANS, "--plan") as Plan,
      credits: parseCredits(values.credits),
      renewsMonthly: values.monthly,
      actor: ACTOR,
    });
    switch (command) {
      case "account create": {
        const account = await accounts.createAccount(newAccount());
        return { id: account.id, email: account.email, name: account.name, plan: account.plan };
      }
      case "account invite": {
        const invitation = await new InvitationsService(
          accounts,
          area,
          new SignInLinksService(area, config),
          new InvitationMailRepository(config),
        ).invite({ ...newAccount(), isAdmin: values.admin });
        if (invitation.mail.status === "failed") mailRefused = invitation.mail.detail ?? "";
        return {
          email: invitation.email,
          isAdmin: invitation.isAdmin,
          link: invitation.link,
          expiresAt: invitation.expiresAt,
          mail: invitation.mail.status,
          note:
            invitation.mail.status === "sent"
              ? "The link was mailed to the account's owner: it sets their password once."
              : "Send this link to the account's owner: it sets their password once.",
        };
      }
      case "key create": {
        const { apiKey, key } = await accounts.createApiKey({
          email: email(),
          name: values.name ?? "default",
          actor: ACTOR,
        });
        return { id: apiKey.id, name: apiKey.name, key, note: "Store this key now: it is not shown again." };
      }
      case "key list":
        return (await accounts.listApiKeys(email())).map((key) => ({
          id: key.id,
          name: key.name,
          prefix: key.prefix,
          createdAt: key.createdAt.toISOString(),
          lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
          revokedAt: key.revokedAt?.toISOString() ?? null,
        }));
      case "key revoke": {
        const apiKey = await accounts.revokeApiKey({
          email: email(),
          apiKeyId: required(values.id, "--id"),
          actor: ACTOR,
        });
        return { id: apiKey.id, revokedAt: apiKey.revokedAt?.toISOString() };
      }
      case "credits grant": {
        const type = oneOf(values.type, CREDIT_BUCKET_TYPES, "--type") as CreditBucketType;
        const amount = integer(required(values.amount, "--amount"), "--amount");
        await accounts.grantCredits({ email: email(), type, amount, actor: ACTOR, reference: values.note });
        return { email: values.email, type, granted: amount };
      }
      case "limits show":
        return describeLimits(config, await accounts.limitsOf(email()));
      case "limits set": {
        const changes = parseLimitChanges(values as Record<string, unknown>);
        if (Object.keys(changes).length === 0)
          throw new UsageError(`limits set needs at least one of --${ACCOUNT_LIMIT_NAMES.join(", --")}.`);
        return describeLimits(config, await accounts.setLimits({ email: email(), changes, actor: ACTOR }));
      }
      case "catalogue import":
        return await importCatalogue(config, database, {
          manifestPath: required(values.manifest, "--manifest"),
          imagesDir: values.images,
          withPictures: !values["no-images"],
        });
      case "catalogue export": {
        const storage = openImageStorage(config.storage);
        const catalogue = new CatalogueRepository(database.prisma, database, config);
        return await new CatalogueExportService(catalogue, storage).export({
          outPath: required(values.out, "--out"),
          imagesDir: values.images,
        });
      }
      default:
        throw new UsageError(`Unknown command "${command}".\n\n${USAGE}`);
    }
  } finally {
    await database.close();
  }
}

async function importCatalogue(
  config: AppConfig,
  database: Database,
  options: { manifestPath: string; imagesDir: string | undefined; withPictures: boolean },
) {
  const sources = new ImageSourcesRepository({
    imagesDir: options.imagesDir,
    allowHttp: config.webhooks.allowHttp,
    allowPrivate: config.webhooks.allowPrivate,
  });
  const progress = new ProgressReporter(process.stderr);
  try {
    const summary = await new CatalogueImportService(
      new CatalogueRepository(database.prisma, database, config),
      sources,
      openImageStorage(config.storage),
    ).import({
      ...options,
      onProgress: (update) => progress.update(update),
      onSkipped: ({ line, reason }) => progress.note(`line ${line}: ${reason}`),
      onIndexing: () => progress.note("every line is written; indexing the last images for search"),
    });
    progress.finish();
    skippedLines = summary.skipped;
    return summary;
  } finally {
    await sources.close();
  }
}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required.`);
  return value;
}

function oneOf(value: string | undefined, allowed: readonly string[], flag: string): string {
  if (!value || !allowed.includes(value))
    throw new UsageError(`${flag} must be one of ${allowed.join(", ")}.`);
  return value;
}

function integer(value: string, flag: string): number {
  if (!/^-?\d+$/.test(value)) throw new UsageError(`${flag} must be a whole number.`);
  return Number(value);
}

/** `--search 300 --display default`: a number, or null to go back to the default. */
function parseLimitChanges(
  values: Record<string, unknown>,
): Partial<Record<AccountLimitName, number | null>> {
  const changes: Partial<Record<AccountLimitName, number | null>> = {};
  for (const name of ACCOUNT_LIMIT_NAMES) {
    const value = values[name];
    if (typeof value !== "string") continue;
    changes[name] = value === "default" ? null : integer(value, `--${name}`);
    if ((changes[name] ?? 0) < 0) throw new UsageError(`--${name} must be 0 or more.`);
  }
  return changes;
}

/** Each limit in force: the account's own, or the default (from this environment's configuration). */
function describeLimits(config: AppConfig, own: AccountLimits) {
  const defaults: Record<AccountLimitName, number> = {
    ...config.rateLimits.perWindow,
    "active-generations": config.generations.maxActivePerAccount,
  };
  return ACCOUNT_LIMIT_NAMES.map((name) => ({
    limit: name,
    value: own[name] ?? defaults[name],
    source: own[name] === undefined ? "default" : "account",
    per: name === "active-generations" ? "at once" : `${config.rateLimits.windowSeconds} s`,
  }));
}

/** `f_images=100,f_images_print=20` */
function parseCredits(text: string): StartingCredits {
  const credits: StartingCredits = {};
  for (const pair of text.split(",").filter(Boolean)) {
    const [type, amount = ""] = pair.split("=");
    credits[oneOf(type, CREDIT_BUCKET_TYPES, "--credits") as CreditBucketType] = integer(amount, "--credits");
  }
  return credits;
}

function print(result: unknown, asJson: boolean): void {
  if (asJson) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const rows = Array.isArray(result) ? result : [result];
  if (rows.length === 0) process.stdout.write("(none)\n");
  for (const row of rows) {
    const fields = Object.entries(row as Record<string, unknown>).map(
      ([name, value]) => `${name}: ${value ?? "-"}`,
    );
    process.stdout.write(`${fields.join("\n")}\n\n`);
  }
}

const argv = process.argv.slice(2);
run(argv)
  .then((result) => {
    print(result, argv.includes("--json"));
    if (skippedLines > 0) {
      process.stderr.write(
        `${skippedLines} line${skippedLines === 1 ? " was" : "s were"} skipped (reported above)\n`,
      );
      process.exitCode = 5;
    }
    if (mailRefused !== undefined) {
      process.stderr.write(`The mail server refused the invitation: ${mailRefused}\n`);
      process.exitCode = 4;
    }
  })
  .catch((error: unknown) => {
    const isUserError = error instanceof UsageError || error instanceof ConfigError;
    // The same status the API would answer: an HTTP exception's, or the one a domain error maps to.
    const status = refusalBodyOf(error)?.statusCode;
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    // 2: usage, 3: the account or key does not exist or already exists, 1: anything else (4: see mailRefused,
    // 5: see skippedLines).
    process.exit(isUserError ? 2 : status === 404 || status === 409 ? 3 : 1);
  });
