import type { ChangePasswordRequest, ForgotPasswordRequest, IssuedLink } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { AccountsService } from "../accounts/accounts.service.js";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { Forbidden, TooManyAttempts, Unavailable } from "../common/domain-errors.js";
import { AccountAreaRepository } from "./account-area.repository.js";
import { InvitationMailRepository } from "./invitation-mail.repository.js";
import { hashPassword, isPasswordCorrect } from "./passwords.js";
import type { SignedIn } from "./sessions.service.js";
import { SignInLinksService } from "./sign-in-links.service.js";
import { SignInThrottleRepository } from "./sign-in-throttle.repository.js";

/** Passwords after the first: changed by their owner, reset by a mailed link or by one an admin issues. */
@Injectable()
export class AccountPasswordsService {
  constructor(
    private readonly area: AccountAreaRepository,
    private readonly accounts: AccountsService,
    private readonly links: SignInLinksService,
    private readonly mail: InvitationMailRepository,
    private readonly throttle: SignInThrottleRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Sets a first password, or changes it given the current one; the account's other sessions end. */
  async change(signedIn: SignedIn, request: ChangePasswordRequest): Promise<void> {
    const { account } = signedIn.caller;
    const stored = await this.area.findAccount(account.id);
    if (stored?.passwordHash) {
      const isCurrent =
        request.currentPassword !== undefined &&
        (await isPasswordCorrect(stored.passwordHash, request.currentPassword));
      if (!isCurrent) throw new Forbidden("the current password is wrong");
    }
    await this.area.changePassword(account.id, await hashPassword(request.newPassword), signedIn.sessionId, {
      accountId: account.id,
      actor: signedIn.caller.actor,
      action: stored?.passwordHash ? "account.password_changed" : "account.password_set",
      details: {},
    });
  }

  /**
   * Mails a reset link when the email has an account (the answer is the same when it has none, so that
   * nobody learns which emails have accounts). Counted with the address's sign-in attempts: each costs a mail.
   */
  async forgot(request: ForgotPasswordRequest, address: string): Promise<void> {
    if (!this.mail.isConfigured) {
      throw new Unavailable("no mail server is set on this server: ask an admin for a reset link");
    }
    const { attempts, windowEndsInSeconds } = await this.throttle.countAttempt(address);
    if (attempts > this.config.webArea.signInAttemptsPerMinute) {
      throw new TooManyAttempts(
        `too many attempts from this address; try again in ${windowEndsInSeconds} s`,
        windowEndsInSeconds,
      );
    }
    const account = await this.area.findAccountByEmail(request.email);
    if (!account || account.disabledAt) return;
    const link = await this.links.create(account.email, "reset-password", "forgot-password");
    await this.mail.send({
      to: account.email,
      link: link.url,
      expiresAt: link.expiresAt,
      kind: "password-reset",
    });
  }

  /** A reset link an admin hands over (mailed too when SMTP is set); the account is signed out everywhere. */
  async issue(caller: Caller, accountId: string): Promise<IssuedLink> {
    const account = await this.accounts.requireAccountById(accountId);
    const link = await this.links.create(account.email, "reset-password", caller.actor, {
      endsSessions: true,
    });
    const mail = await this.mail.send({
      to: account.email,
      link: link.url,
      expiresAt: link.expiresAt,
      kind: "password-reset",
    });
    return { link: link.url, expiresAt: link.expiresAt.toISOString(), mail };
  }
}
