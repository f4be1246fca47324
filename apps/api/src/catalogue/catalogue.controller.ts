import {
  accountOperations,
  type DisplayImageParams,
  operations,
  type SearchImagesRequest,
  type SearchImagesResponse,
} from "@imagehub/domain";
import { Body, Controller, Headers, Param, Res } from "@nestjs/common";
import type { FastifyReply } from "fastify";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { OptionalCaller } from "../accounts/current-caller.decorator.js";
import { Endpoint } from "../common/endpoint.decorator.js";
import { ImageDisplayService } from "./image-display.service.js";
import { ImageSearchService } from "./image-search.service.js";

/** The catalogue at /v1: its search and its images. */
@Controller()
export class CatalogueController {
  constructor(
    private readonly searchService: ImageSearchService,
    private readonly displayService: ImageDisplayService,
  ) {}

  @Endpoint(operations.searchImages)
  search(@Body() request: SearchImagesRequest): Promise<SearchImagesResponse> {
    return this.searchService.search(request);
  }

  @Endpoint(operations.displayImage)
  async display(
    @Param() params: DisplayImageParams,
    @OptionalCaller() caller: Caller | undefined,
    @Headers("if-none-match") ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const answer = await this.displayService.display(params, caller?.account.id, ifNoneMatch);
    void reply.status(answer.status).header("etag", answer.etag).header("cache-control", answer.cacheControl);
    if (answer.vary) void reply.header("vary", answer.vary);
    if (answer.location) void reply.header("location", answer.location);
    await (answer.bytes ? reply.type("image/jpeg").send(answer.bytes) : reply.send());
  }
}

/** The web area's catalogue page. */
@Controller()
export class AccountCatalogueController {
  constructor(private readonly searchService: ImageSearchService) {}

  @Endpoint(accountOperations.searchAccountImages)
  search(@Body() request: SearchImagesRequest): Promise<SearchImagesResponse> {
    return this.searchService.search(request);
  }
}
