export * from "./accounts.schema.js";
export * from "./common.schema.js";
export * from "./generations.schema.js";
export * from "./images.schema.js";
export { buildOpenApiDocument, type OpenApiInfo } from "./openapi.js";
export * from "./operation.js";
export { type OperationId, type Operations, operations } from "./operations.js";
export * from "./webhooks.schema.js";
