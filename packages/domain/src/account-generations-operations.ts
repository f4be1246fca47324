import {
  CreateImageGenerationRequestSchema,
  DeleteImageGenerationsRequestSchema,
  DeleteImageGenerationsResponseSchema,
  FindImageGenerationsQuerySchema,
  ImageGenerationListSchema,
  ImageGenerationSchema,
  PrintIdParamsSchema,
} from "./generations.schema.js";
import { defineOperation } from "./operation.js";

/** The web area's generations page: the /v1 generation operations' shapes, for the signed-in account. */
export const accountGenerationOperations = {
  listAccountGenerations: defineOperation({
    operationId: "listAccountGenerations",
    method: "GET",
    path: "/account/generations",
    tag: "Account",
    summary: "The account's generations",
    description: "As the /v1 Find Image Generations: whichever key or session created them.",
    auth: "session",
    query: FindImageGenerationsQuerySchema,
    success: { status: 200, description: "One page of generations.", schema: ImageGenerationListSchema },
  }),
  createAccountGeneration: defineOperation({
    operationId: "createAccountGeneration",
    method: "POST",
    path: "/account/generations",
    tag: "Account",
    summary: "Create a generation",
    description: "As the /v1 Create Image generation, with the same body and rules.",
    auth: "session",
    body: CreateImageGenerationRequestSchema,
    success: { status: 201, description: "The generation, Pending.", schema: ImageGenerationSchema },
    errors: {
      402: "No f_images_print credit left (or, with processMode fast, no fast quota); nothing was written.",
      403: "processMode was given by an account that is not on the dedicated plan.",
    },
  }),
  retryAccountGeneration: defineOperation({
    operationId: "retryAccountGeneration",
    method: "POST",
    path: "/account/generations/{printId}/retry",
    tag: "Account",
    summary: "Retry a generation in Error",
    auth: "session",
    params: PrintIdParamsSchema,
    success: { status: 200, description: "The generation, Pending.", schema: ImageGenerationSchema },
    errors: {
      402: "No f_images_print credit left.",
      404: "No generation with this id in the account.",
      409: "The generation is not in Error.",
    },
  }),
  deleteAccountGenerations: defineOperation({
    operationId: "deleteAccountGenerations",
    method: "DELETE",
    path: "/account/generations",
    tag: "Account",
    summary: "Delete generations",
    description: "As the /v1 Delete: bought images stay in the downloaded list.",
    auth: "session",
    body: DeleteImageGenerationsRequestSchema,
    success: {
      status: 200,
      description: "What was deleted and what was not found.",
      schema: DeleteImageGenerationsResponseSchema,
    },
  }),
} as const;
