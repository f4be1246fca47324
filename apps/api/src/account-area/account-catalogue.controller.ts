import {
  accountOperations,
  type CreditLedgerPage,
  type CreditLedgerQuery,
  type Credits,
  type DownloadedImagesRequest,
  type DownloadedImagesResponse,
  type ImageIdRequest,
  type PurchasedImage,
  type SearchImagesRequest,
  type SearchImagesResponse,
} from "@imagehub/domain";
import { Body, Controller, Query } from "@nestjs/common";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { CreditsService } from "../accounts/credits.service.js";
import { ImageSearchService } from "../catalogue/image-search.service.js";
import { CurrentCaller } from "../common/api-key.guard.js";
import { Endpoint } from "../common/endpoint.decorator.js";
import { PurchasesService } from "../purchases/purchases.service.js";

/** The catalogue and credits pages: the /v1 services, for the signed-in account. */
@Controller()
export class AccountCatalogueController {
  constructor(
    private readonly images: ImageSearchService,
    private readonly purchases: PurchasesService,
    private readonly credits: CreditsService,
  ) {}

  @Endpoint(accountOperations.searchAccountImages)
  search(@Body() request: SearchImagesRequest): Promise<SearchImagesResponse> {
    return this.images.search(request);
  }

  @Endpoint(accountOperations.buyAccountImage)
  buy(@CurrentCaller() caller: Caller, @Body() request: ImageIdRequest): Promise<PurchasedImage> {
    return this.purchases.buy(caller, request.id);
  }

  @Endpoint(accountOperations.downloadedAccountImages)
  downloaded(
    @CurrentCaller() caller: Caller,
    @Body() request: DownloadedImagesRequest,
  ): Promise<DownloadedImagesResponse> {
    return this.purchases.downloaded(caller, request);
  }

  @Endpoint(accountOperations.getAccountCredits)
  balances(@CurrentCaller() caller: Caller): Promise<Credits> {
    return this.credits.credits(caller.account.id);
  }

  @Endpoint(accountOperations.listAccountCreditLedger)
  ledger(@CurrentCaller() caller: Caller, @Query() query: CreditLedgerQuery): Promise<CreditLedgerPage> {
    return this.credits.ledger(caller.account.id, query);
  }
}
