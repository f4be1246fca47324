import { Module } from "@nestjs/common";
import { AccountsModule } from "../accounts/accounts.module.js";
import { AccountApiKeysController } from "./account-api-keys.controller.js";
import { AccountApiKeysService } from "./account-api-keys.service.js";
import { AccountAreaRepository } from "./account-area.repository.js";
import { AccountPasswordsService } from "./account-passwords.service.js";
import { AdminAccountsController } from "./admin-accounts.controller.js";
import { AdminAccountsService } from "./admin-accounts.service.js";
import { InvitationMailRepository } from "./invitation-mail.repository.js";
import { InvitationsService } from "./invitations.service.js";
import { SessionController } from "./session.controller.js";
import { SessionsService } from "./sessions.service.js";
import { SignInLinksService } from "./sign-in-links.service.js";
import { SignInThrottleRepository } from "./sign-in-throttle.repository.js";

/**
 * The web area's own session-authenticated /account routes (apps/web): sessions, keys, admin. Its routes
 * that mirror /v1 are served by their areas' controllers.
 */
@Module({
  imports: [AccountsModule],
  controllers: [SessionController, AccountApiKeysController, AdminAccountsController],
  providers: [
    AccountAreaRepository,
    AccountApiKeysService,
    AccountPasswordsService,
    AdminAccountsService,
    InvitationMailRepository,
    InvitationsService,
    SessionsService,
    SignInLinksService,
    SignInThrottleRepository,
  ],
  exports: [SessionsService, SignInLinksService],
})
export class AccountAreaModule {}
