import { Module } from "@nestjs/common";
import { AccountsModule } from "../accounts/accounts.module.js";
import { CatalogueModule } from "../catalogue/catalogue.module.js";
import { PurchasesModule } from "../purchases/purchases.module.js";
import { AccountApiKeysController } from "./account-api-keys.controller.js";
import { AccountApiKeysService } from "./account-api-keys.service.js";
import { AccountAreaRepository } from "./account-area.repository.js";
import { AccountCatalogueController } from "./account-catalogue.controller.js";
import { AdminAccountsController } from "./admin-accounts.controller.js";
import { AdminAccountsService } from "./admin-accounts.service.js";
import { InvitationMailRepository } from "./invitation-mail.repository.js";
import { InvitationsService } from "./invitations.service.js";
import { SessionController } from "./session.controller.js";
import { SessionsService } from "./sessions.service.js";
import { SignInLinksService } from "./sign-in-links.service.js";
import { SignInThrottleRepository } from "./sign-in-throttle.repository.js";

/** The session-authenticated /account routes the web app (apps/web) calls. */
@Module({
  imports: [AccountsModule, CatalogueModule, PurchasesModule],
  controllers: [
    SessionController,
    AccountApiKeysController,
    AccountCatalogueController,
    AdminAccountsController,
  ],
  providers: [
    AccountAreaRepository,
    AccountApiKeysService,
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
