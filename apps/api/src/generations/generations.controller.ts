import {
  accountOperations,
  type CreateImageGenerationRequest,
  type DeleteImageGenerationsRequest,
  type DeleteImageGenerationsResponse,
  type FindImageGenerationsQuery,
  type ImageGeneration,
  type ImageGenerationList,
  type Operation,
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

/** The routes /v1 (by API key) and the web area (by session) both serve, each at its own operations. */
function generationRoutes(bound: Record<"create" | "retry" | "find" | "delete", Operation>) {
  @Controller()
  class GenerationRoutes {
    constructor(readonly generations: GenerationsService) {}

    @Endpoint(bound.create)
    create(
      @CurrentCaller() caller: Caller,
      @Body() request: CreateImageGenerationRequest,
      @HeldIdempotencyKey() key: HeldKey | undefined,
    ): Promise<ImageGeneration> {
      return this.generations.create(caller, request, key);
    }

    @Endpoint(bound.retry)
    retry(
      @CurrentCaller() caller: Caller,
      @Param("printId") id: string,
      @HeldIdempotencyKey() key: HeldKey | undefined,
    ): Promise<ImageGeneration> {
      return this.generations.retry(caller, id, key);
    }

    @Endpoint(bound.find)
    find(
      @CurrentCaller() caller: Caller,
      @Query() query: FindImageGenerationsQuery,
    ): Promise<ImageGenerationList> {
      return this.generations.find(caller, query);
    }

    @Endpoint(bound.delete)
    delete(
      @CurrentCaller() caller: Caller,
      @Body() request: DeleteImageGenerationsRequest,
      @HeldIdempotencyKey() key: HeldKey | undefined,
    ): Promise<DeleteImageGenerationsResponse> {
      return this.generations.delete(caller, request.printIds, key);
    }
  }
  return GenerationRoutes;
}

@Controller()
export class GenerationsController extends generationRoutes({
  create: operations.createImageGeneration,
  retry: operations.retryImageGeneration,
  find: operations.findImageGenerations,
  delete: operations.deleteImageGenerations,
}) {
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

/** The web area's generations page. */
@Controller()
export class AccountGenerationsController extends generationRoutes({
  create: accountOperations.createAccountGeneration,
  retry: accountOperations.retryAccountGeneration,
  find: accountOperations.listAccountGenerations,
  delete: accountOperations.deleteAccountGenerations,
}) {}
