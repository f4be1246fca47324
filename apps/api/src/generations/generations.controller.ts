import {
  accountOperations,
  type CreateImageGenerationRequest,
  type DeleteImageGenerationsRequest,
  type DeleteImageGenerationsResponse,
  type FindImageGenerationsQuery,
  type ImageGeneration,
  type ImageGenerationList,
  operations,
  type UpdateImageGenerationRequest,
} from "@imagehub/domain";
import { Body, Controller, Param, Query } from "@nestjs/common";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { CurrentCaller } from "../accounts/current-caller.decorator.js";
import { Endpoint } from "../common/endpoint.decorator.js";
import { HeldIdempotencyKey } from "../idempotency/held-key.decorator.js";
import type { HeldKey } from "../idempotency/idempotent-write.js";
import { GenerationsService } from "./generations.service.js";

/** The generations of the caller's account, at /v1 (by API key). */
@Controller()
export class GenerationsController {
  constructor(private readonly generations: GenerationsService) {}

  @Endpoint(operations.createImageGeneration)
  create(
    @CurrentCaller() caller: Caller,
    @Body() request: CreateImageGenerationRequest,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<ImageGeneration> {
    return this.generations.create(caller, request, key);
  }

  @Endpoint(operations.retryImageGeneration)
  retry(
    @CurrentCaller() caller: Caller,
    @Param("printId") id: string,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<ImageGeneration> {
    return this.generations.retry(caller, id, key);
  }

  @Endpoint(operations.findImageGenerations)
  find(
    @CurrentCaller() caller: Caller,
    @Query() query: FindImageGenerationsQuery,
  ): Promise<ImageGenerationList> {
    return this.generations.find(caller, query);
  }

  @Endpoint(operations.deleteImageGenerations)
  delete(
    @CurrentCaller() caller: Caller,
    @Body() request: DeleteImageGenerationsRequest,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<DeleteImageGenerationsResponse> {
    return this.generations.delete(caller, request.printIds, key);
  }

  @Endpoint(operations.updateImageGeneration)
  update(
    @CurrentCaller() caller: Caller,
    @Param("printId") id: string,
    @Body() changes: UpdateImageGenerationRequest,
  ): Promise<ImageGeneration> {
    return this.generations.update(caller, id, changes);
  }

  @Endpoint(operations.getImageGeneration)
  get(@CurrentCaller() caller: Caller, @Param("imageGenerationId") id: string): Promise<ImageGeneration> {
    return this.generations.get(caller, id);
  }
}

/** The web area's generations page (by session). */
@Controller()
export class AccountGenerationsController {
  constructor(private readonly generations: GenerationsService) {}

  @Endpoint(accountOperations.createAccountGeneration)
  create(
    @CurrentCaller() caller: Caller,
    @Body() request: CreateImageGenerationRequest,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<ImageGeneration> {
    return this.generations.create(caller, request, key);
  }

  @Endpoint(accountOperations.retryAccountGeneration)
  retry(
    @CurrentCaller() caller: Caller,
    @Param("printId") id: string,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<ImageGeneration> {
    return this.generations.retry(caller, id, key);
  }

  @Endpoint(accountOperations.listAccountGenerations)
  find(
    @CurrentCaller() caller: Caller,
    @Query() query: FindImageGenerationsQuery,
  ): Promise<ImageGenerationList> {
    return this.generations.find(caller, query);
  }

  @Endpoint(accountOperations.deleteAccountGenerations)
  delete(
    @CurrentCaller() caller: Caller,
    @Body() request: DeleteImageGenerationsRequest,
    @HeldIdempotencyKey() key: HeldKey | undefined,
  ): Promise<DeleteImageGenerationsResponse> {
    return this.generations.delete(caller, request.printIds, key);
  }
}
