import { buildOpenApiDocument } from "./openapi.js";
import { operations } from "./operations.js";

const DESCRIPTION = `Image catalogue and AI image generation.

Authenticate with the \`api-key\` header on every route except Display Image. Errors always answer
\`{ statusCode, error, message: string[] }\`. Paginated lists take \`limit\` (default 20, at most 100)
and \`offset\` (default 0) and answer \`filteredResults\`, the total count, with the page.`;

/** The server the committed `openapi.json` names: the API's default address. */
export const DEFAULT_SERVER_URL = "http://localhost:3000";

/** imagehub's whole interface as OpenAPI 3.1: what `/doc-json` serves and `openapi.json` holds. */
export function buildImagehubOpenApiDocument(serverUrl = DEFAULT_SERVER_URL): Record<string, unknown> {
  return buildOpenApiDocument(Object.values(operations), {
    title: "imagehub API",
    version: "1",
    description: DESCRIPTION,
    serverUrl,
  });
}
