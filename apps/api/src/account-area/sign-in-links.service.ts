import { createHash, randomBytes } from "node:crypto";
import { Inject, Injectable } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { NotFound } from "../common/domain-errors.js";
import { AccountAreaRepository, type SignInLinkPurpose } from "./account-area.repository.js";

/**
 * An invitation lasts a week; the embedded demo account's sign-in link, printed at each start, a day; a
 * password reset, which anyone may ask to be mailed, two hours.
 */
const LINK_LIFETIME_HOURS: Record<SignInLinkPurpose, number> = {
  "set-password": 24 * 7,
  "sign-in": 24,
  "reset-password": 2,
};
/** The web app's page for each purpose; the token travels in the fragment, which no server log records. */
const LINK_PAGE: Record<SignInLinkPurpose, string> = {
  "set-password": "/welcome",
  "sign-in": "/link",
  "reset-password": "/reset",
};
/** What the audit log says of a link issued by someone (an admin, the CLI, the owner asking by mail). */
const ISSUED_ACTION: Record<SignInLinkPurpose, string> = {
  "set-password": "account.invited",
  "sign-in": "account.sign_in_link_issued",
  "reset-password": "account.password_reset_issued",
};

export interface SignInLink {
  url: string;
  expiresAt: Date;
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

/** One-time links that let an account owner in: by the admin CLI, the admin area and the embedded start. */
@Injectable()
export class SignInLinksService {
  constructor(
    private readonly area: AccountAreaRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A link for the account; `issuedBy` (an actor) records it in the audit log. A reset issued by an admin
   * (`endsSessions`) signs the account out everywhere at once.
   */
  async create(
    email: string,
    purpose: SignInLinkPurpose,
    issuedBy?: string,
    { endsSessions = false } = {},
  ): Promise<SignInLink> {
    const account = await this.area.findAccountByEmail(email);
    if (!account) throw new NotFound(`no account with email ${email}`);
    const token = randomToken();
    const expiresAt = new Date(Date.now() + LINK_LIFETIME_HOURS[purpose] * 3_600_000);
    const audit = issuedBy && {
      accountId: account.id,
      actor: issuedBy,
      action: ISSUED_ACTION[purpose],
      details: { email: account.email, expiresAt: expiresAt.toISOString() },
    };
    await this.area.createLink(
      { tokenHash: hashToken(token), accountId: account.id, purpose, expiresAt },
      audit || undefined,
      { endsSessions },
    );
    return { url: `${this.config.http.publicBaseUrl}${LINK_PAGE[purpose]}#${token}`, expiresAt };
  }
}
