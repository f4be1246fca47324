import {
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
import { CurrentCaller } from "../common/api-key.guard.js";
import { Endpoint } from "../common/endpoint.decorator.js";
import { GenerationsService } from "./generations.service.js";

@Controller()
export class GenerationsController {
  constructor(private readonly generations: GenerationsService) {}

  @Endpoint(operations.createImageGeneration)
  create(
    @CurrentCaller() caller: Caller,
    @Body() request: CreateImageGenerationRequest,
  ): Promise<ImageGeneration> {
    return this.generations.create(caller, request);
  }

  @Endpoint(operations.updateImageGeneration)
  update(
    @CurrentCaller() caller: Caller,
    @Param("printId") id: string,
    @Body() changes: UpdateImageGenerationRequest,
  ): Promise<ImageGeneration> {
    return this.generations.update(caller, id, changes);
  }

  @Endpoint(operations.retryImageGeneration)
  retry(@CurrentCaller() caller: Caller, @Param("printId") id: string): Promise<ImageGeneration> {
    return this.generations.retry(caller, id);
  }

  @Endpoint(operations.findImageGenerations)
  find(
    @CurrentCaller() caller: Caller,
    @Query() query: FindImageGenerationsQuery,
  ): Promise<ImageGenerationList> {
    return this.generations.find(caller, query);
  }

  @Endpoint(operations.getImageGeneration)
  get(@CurrentCaller() caller: Caller, @Param("imageGenerationId") id: string): Promise<ImageGeneration> {
    return this.generations.get(caller, id);
  }

  @Endpoint(operations.deleteImageGenerations)
  delete(
    @CurrentCaller() caller: Caller,
    @Body() request: DeleteImageGenerationsRequest,
  ): Promise<DeleteImageGenerationsResponse> {
    return this.generations.delete(caller, request.printIds);
  }
}
