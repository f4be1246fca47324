import { Module } from "@nestjs/common";
import { AccountsModule } from "../accounts/accounts.module.js";
import { AccountApiKeysController } from "./account-api-keys.controller.js";
import { AccountApiKeysService } from "./account-api-keys.service.js";
import { AccountAreaRepository } from "./account-area.repository.js";
import { SessionController } from "./session.controller.js";
import { SessionsService } from "./sessions.service.js";
import { SignInLinksService } from "./sign-in-links.service.js";
import { SignInThrottleRepository } from "./sign-in-throttle.repository.js";

/** The session-authenticated /account routes the web app (apps/web) calls. */
@Module({
  imports: [AccountsModule],
  controllers: [SessionController, AccountApiKeysController],
  providers: [
    AccountAreaRepository,
    AccountApiKeysService,
    SessionsService,
    SignInLinksService,
    SignInThrottleRepository,
  ],
  exports: [SessionsService, SignInLinksService],
})
export class AccountAreaModule {}
