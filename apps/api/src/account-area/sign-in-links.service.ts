import { createHash, randomBytes } from "node:crypto";
import { Inject, Injectable, NotFoundException } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { AccountAreaRepository, type SignInLinkPurpose } from "./account-area.repository.js";

/** An invitation lasts a week; the embedded demo account's sign-in link, printed at each start, a day. */
const LINK_LIFETIME_HOURS: Record<SignInLinkPurpose, number> = { "set-password": 24 * 7, "sign-in": 24 };
/** The web app's page for each purpose; the token travels in the fragment, which no server log records. */
const LINK_PAGE: Record<SignInLinkPurpose, string> = { "set-password": "/welcome", "sign-in": "/link" };

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

  /** A link for the account; `invitedBy` (an actor) records it in the audit log as an invitation. */
  async create(email: string, purpose: SignInLinkPurpose, invitedBy?: string): Promise<SignInLink> {
    const account = await this.area.findAccountByEmail(email);
    if (!account) throw new NotFoundException(`no account with email ${email}`);
    const token = randomToken();
    const expiresAt = new Date(Date.now() + LINK_LIFETIME_HOURS[purpose] * 3_600_000);
    const invitation = invitedBy && {
      accountId: account.id,
      actor: invitedBy,
      action: "account.invited",
      details: { email: account.email, expiresAt: expiresAt.toISOString() },
    };
    await this.area.createLink(
      { tokenHash: hashToken(token), accountId: account.id, purpose, expiresAt },
      invitation || undefined,
    );
    return { url: `${this.config.http.publicBaseUrl}${LINK_PAGE[purpose]}#${token}`, expiresAt };
  }
}
