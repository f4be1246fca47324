import {
  type AccountImage,
  type AccountImagesRequest,
  type AccountImagesResponse,
  accountOperations,
  type DownloadedImagesRequest,
  type DownloadedImagesResponse,
  type ImageIdRequest,
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

/** Buying and downloading at /v1, and the signed links of bought images. */
@Controller()
export class PurchasesController {
  constructor(private readonly purchases: PurchasesService) {}

  @Endpoint(operations.buyImage)
  buy(@CurrentCaller() caller: Caller, @Body() request: ImageIdRequest): Promise<PurchasedImage> {
    return this.purchases.buy(caller, request.id);
  }

  @Endpoint(operations.downloadedImages)
  downloaded(
    @CurrentCaller() caller: Caller,
    @Body() request: DownloadedImagesRequest,
  ): Promise<DownloadedImagesResponse> {
    return this.purchases.downloaded(caller, request);
  }

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
export class AccountPurchasesController {
  constructor(private readonly purchases: PurchasesService) {}

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
