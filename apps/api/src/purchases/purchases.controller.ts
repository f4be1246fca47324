import {
  type AccountImage,
  type AccountImagesRequest,
  type AccountImagesResponse,
  accountOperations,
  type DownloadedImagesRequest,
  type DownloadedImagesResponse,
  type ImageIdRequest,
  type Operation,
  operations,
  type PurchasedImage,
  type SignedRendition,
} from "@imagehub/domain";
import { Body, Controller, Param, Query, Res } from "@nestjs/common";
import type { FastifyReply } from "fastify";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { CurrentCaller } from "../accounts/current-caller.decorator.js";
import type { ImageFile } from "../catalogue/image-files.service.js";
import { Endpoint } from "../common/endpoint.decorator.js";
import { PurchasesService } from "./purchases.service.js";

/** The routes /v1 (by API key) and the web area (by session) both serve, each at its own operations. */
function purchaseRoutes(bound: Record<"buy" | "downloaded", Operation>) {
  @Controller()
  class PurchaseRoutes {
    constructor(readonly purchases: PurchasesService) {}

    @Endpoint(bound.buy)
    buy(@CurrentCaller() caller: Caller, @Body() request: ImageIdRequest): Promise<PurchasedImage> {
      return this.purchases.buy(caller, request.id);
    }

    @Endpoint(bound.downloaded)
    downloaded(
      @CurrentCaller() caller: Caller,
      @Body() request: DownloadedImagesRequest,
    ): Promise<DownloadedImagesResponse> {
      return this.purchases.downloaded(caller, request);
    }
  }
  return PurchaseRoutes;
}

@Controller()
export class PurchasesController extends purchaseRoutes({
  buy: operations.buyImage,
  downloaded: operations.downloadedImages,
}) {
  @Endpoint(operations.downloadImage)
  async download(
    @CurrentCaller() caller: Caller,
    @Body() request: ImageIdRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { file, downloadName } = await this.purchases.download(caller, request.id);
    await sendAttachment(reply, file, downloadName);
  }

  @Endpoint(operations.signedImageFile)
  async signedFile(
    @Param() params: { imageId: string; rendition: SignedRendition },
    @Query() query: { expires: number; signature: string },
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const answer = await this.purchases.signedFile(
      params.imageId,
      params.rendition,
      query.expires,
      query.signature,
    );
    if ("redirectTo" in answer) {
      await reply.redirect(answer.redirectTo, 302);
      return;
    }
    await sendAttachment(reply, answer.file, answer.downloadName);
  }
}

/** The web area's catalogue and generations pages: what the account bought, and what images cost it. */
@Controller()
export class AccountPurchasesController extends purchaseRoutes({
  buy: accountOperations.buyAccountImage,
  downloaded: accountOperations.downloadedAccountImages,
}) {
  @Endpoint(accountOperations.accountImages)
  images(
    @CurrentCaller() caller: Caller,
    @Body() request: AccountImagesRequest,
  ): Promise<AccountImagesResponse> {
    return this.purchases.accountImages(caller, request.ids);
  }

  @Endpoint(accountOperations.getAccountImage)
  image(@CurrentCaller() caller: Caller, @Param("imageId") imageId: string): Promise<AccountImage> {
    return this.purchases.accountImage(caller, imageId);
  }
}

function sendAttachment(reply: FastifyReply, file: ImageFile, downloadName: string) {
  return reply
    .type("image/jpeg")
    .header("content-disposition", `attachment; filename="${downloadName}"`)
    .header("etag", file.etag)
    .header("cache-control", "private, no-store")
    .send(file.bytes);
}
