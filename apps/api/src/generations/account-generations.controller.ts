import {
  accountOperations,
  type CreateImageGenerationRequest,
  type DeleteImageGenerationsRequest,
  type DeleteImageGenerationsResponse,
  type FindImageGenerationsQuery,
  type ImageGeneration,
  type ImageGenerationList,
} from "@imagehub/domain";
import { Body, Controller, Param, Query } from "@nestjs/common";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { CurrentCaller } from "../common/api-key.guard.js";
import { Endpoint } from "../common/endpoint.decorator.js";
import { GenerationsService } from "./generations.service.js";

/** The web area's generations page: the /v1 generation service, for the signed-in account. */
@Controller()
export class AccountGenerationsController {
  constructor(private readonly generations: GenerationsService) {}

  @Endpoint(accountOperations.listAccountGenerations)
  list(
    @CurrentCaller() caller: Caller,
    @Query() query: FindImageGenerationsQuery,
  ): Promise<ImageGenerationList> {
    return this.generations.find(caller, query);
  }

  @Endpoint(accountOperations.createAccountGeneration)
  create(
    @CurrentCaller() caller: Caller,
    @Body() request: CreateImageGenerationRequest,
  ): Promise<ImageGeneration> {
    return this.generations.create(caller, request);
  }

  @Endpoint(accountOperations.retryAccountGeneration)
  retry(@CurrentCaller() caller: Caller, @Param("printId") id: string): Promise<ImageGeneration> {
    return this.generations.retry(caller, id);
  }

  @Endpoint(accountOperations.deleteAccountGenerations)
  delete(
    @CurrentCaller() caller: Caller,
    @Body() request: DeleteImageGenerationsRequest,
  ): Promise<DeleteImageGenerationsResponse> {
    return this.generations.delete(caller, request.printIds);
  }
}
