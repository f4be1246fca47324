import { forTheSession } from "./for-the-session.js";
import { operations } from "./operations.js";

/** The web area's generations page: the /v1 generation operations, for the signed-in account. */
export const accountGenerationOperations = {
  listAccountGenerations: forTheSession(operations.findImageGenerations, {
    operationId: "listAccountGenerations",
    path: "/account/generations",
  }),
  createAccountGeneration: forTheSession(operations.createImageGeneration, {
    operationId: "createAccountGeneration",
    path: "/account/generations",
  }),
  retryAccountGeneration: forTheSession(operations.retryImageGeneration, {
    operationId: "retryAccountGeneration",
    path: "/account/generations/{printId}/retry",
  }),
  deleteAccountGenerations: forTheSession(operations.deleteImageGenerations, {
    operationId: "deleteAccountGenerations",
    path: "/account/generations",
  }),
} as const;
