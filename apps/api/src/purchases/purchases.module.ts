import { Module } from "@nestjs/common";
import { CatalogueModule } from "../catalogue/catalogue.module.js";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { LinkSigner } from "./link-signer.js";
import { AccountPurchasesController, PurchasesController } from "./purchases.controller.js";
import { PurchasesRepository } from "./purchases.repository.js";
import { PurchasesService } from "./purchases.service.js";

@Module({
  imports: [CatalogueModule],
  controllers: [PurchasesController, AccountPurchasesController],
  providers: [
    PurchasesRepository,
    PurchasesService,
    {
      provide: LinkSigner,
      useFactory: (config: AppConfig) => LinkSigner.fromConfig(config),
      inject: [APP_CONFIG],
    },
  ],
  exports: [PurchasesService],
})
export class PurchasesModule {}
