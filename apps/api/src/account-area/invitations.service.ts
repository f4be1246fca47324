import type { Invitation, Plan } from "@imagehub/domain";
import { Injectable } from "@nestjs/common";
import { AccountsService, type StartingCredits } from "../accounts/accounts.service.js";
import { Conflict } from "../common/domain-errors.js";
import { AccountAreaRepository } from "./account-area.repository.js";
import { InvitationMailRepository } from "./invitation-mail.repository.js";
import { SignInLinksService } from "./sign-in-links.service.js";

export interface InvitationRequest {
  email: string;
  name?: string | undefined;
  plan: Plan;
  credits: StartingCredits;
  renewsMonthly?: boolean | undefined;
  isAdmin: boolean;
  actor: string;
}

/**
 * Invitations, from the admin CLI and the admin area alike: a new account, and a one-time link that sets
 * its password, mailed when SMTP is configured. An existing account is refused: a link that sets its
 * password would hand it, sessions and all, to whoever holds the link.
 */
@Injectable()
export class InvitationsService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly area: AccountAreaRepository,
    private readonly links: SignInLinksService,
    private readonly mail: InvitationMailRepository,
  ) {}

  async invite(request: InvitationRequest): Promise<Invitation> {
    if (await this.area.findAccountByEmail(request.email)) {
      throw new Conflict(
        `an account with email ${request.email} exists already: only new accounts are invited`,
      );
    }
    const account = await this.accounts.createAccount(request);
    if (request.isAdmin)
      await this.accounts.setAdmin({ accountId: account.id, isAdmin: true, actor: request.actor });
    const link = await this.links.create(account.email, "set-password", request.actor);
    const mail = await this.mail.send({ to: account.email, link: link.url, expiresAt: link.expiresAt });
    return {
      email: account.email,
      isAdmin: request.isAdmin,
      isNewAccount: true,
      link: link.url,
      expiresAt: link.expiresAt.toISOString(),
      mail,
    };
  }
}
