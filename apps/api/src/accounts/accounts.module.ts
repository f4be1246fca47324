import { Module } from "@nestjs/common";
import { AccountsRepository } from "./accounts.repository.js";
import { AccountsService } from "./accounts.service.js";
import { ApiKeyAuthService } from "./api-key-auth.service.js";
import { ApiKeysController } from "./api-keys.controller.js";
import { AccountCreditsController, CreditsController } from "./credits.controller.js";
import { CreditsService } from "./credits.service.js";

@Module({
  controllers: [ApiKeysController, CreditsController, AccountCreditsController],
  providers: [AccountsRepository, AccountsService, ApiKeyAuthService, CreditsService],
  exports: [AccountsService, ApiKeyAuthService, CreditsService],
})
export class AccountsModule {}
