import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ErrorBodySchema } from "./common.schema.js";
import { ImageGenerationSchema } from "./generations.schema.js";
import { SearchImagesRequestSchema } from "./images.schema.js";
import { buildOpenApiDocument } from "./openapi.js";
import { defineOperation } from "./operation.js";

const info = { title: "t", version: "1", description: "d", serverUrl: "http://localhost" };

describe("buildOpenApiDocument", () => {
  const search = defineOperation({
    operationId: "searchImages",
    method: "POST",
    path: "/v1/images/search",
    tag: "Images",
    summary: "Search",
    auth: "required",
    body: SearchImagesRequestSchema,
    success: { status: 200, description: "ok", schema: ImageGenerationSchema },
    errors: { 402: "Not enough credits." },
  });

  it("references named schemas as components, nested ones included", () => {
    const document = buildOpenApiDocument([search], info) as {
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining([
        "SearchImagesRequest",
        "ImageGeneration",
        "Image",
        "GenerationParam",
        "ErrorBody",
      ]),
    );
  });

  it("documents request bodies in their input form, with defaults", () => {
    const document = buildOpenApiDocument([search], info) as {
      components: {
        schemas: { SearchImagesRequest: { properties: { limit: { default: number } }; required?: string[] } };
      };
    };
    expect(document.components.schemas.SearchImagesRequest.properties.limit.default).toBe(20);
    expect(document.components.schemas.SearchImagesRequest.required ?? []).not.toContain("limit");
  });

  it("lists the operation's own errors beside 400, 401 and 500, all with the error body", () => {
    const document = buildOpenApiDocument([search], info) as {
      paths: Record<
        string,
        { post: { responses: Record<string, { content?: Record<string, { schema: unknown }> }> } }
      >;
    };
    const responses = document.paths["/v1/images/search"]?.post.responses ?? {};
    expect(Object.keys(responses).sort()).toEqual(["200", "400", "401", "402", "500"]);
    expect(responses["402"]?.content?.["application/json"]?.schema).toEqual({
      $ref: "#/components/schemas/ErrorBody",
    });
  });

  it("documents the Idempotency-Key header on the calls that change something, and on no other", () => {
    const create = defineOperation({ ...search, operationId: "createThing", path: "/v1/things" });
    const read = defineOperation({ ...search, operationId: "searchThings", idempotent: true });
    const document = buildOpenApiDocument([create, read], info) as {
      paths: Record<string, { post: { parameters: { name: string; in: string; required: boolean }[] } }>;
    };
    expect(document.paths["/v1/things"]?.post.parameters).toEqual([
      expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false }),
    ]);
    expect(document.paths["/v1/images/search"]?.post.parameters).toEqual([]);
  });

  it("turns path and query schemas into parameters", () => {
    const document = buildOpenApiDocument(
      [
        defineOperation({
          operationId: "getThing",
          method: "GET",
          path: "/things/{id}",
          tag: "T",
          summary: "s",
          auth: "optional",
          params: z.object({ id: z.string() }),
          query: z.object({ verbose: z.coerce.boolean().optional().describe("More detail.") }),
          success: { status: 200, description: "ok", contentType: "image/jpeg" },
        }),
      ],
      info,
    ) as { paths: Record<string, { get: { parameters: unknown[]; security: unknown[] } }> };
    const operation = document.paths["/things/{id}"]?.get;
    expect(operation?.parameters).toEqual([
      { name: "id", in: "path", required: true, schema: { type: "string" } },
      {
        name: "verbose",
        in: "query",
        required: false,
        description: "More detail.",
        schema: { type: "boolean" },
      },
    ]);
    expect(operation?.security).toEqual([{}, { apiKey: [] }]);
  });

  it("refuses a named schema whose request and response forms differ", () => {
    const Shared = z.object({ size: z.number().default(1) }).meta({ id: "Shared" });
    const both = defineOperation({
      ...search,
      body: Shared,
      success: { status: 200, description: "ok", schema: Shared },
    });
    expect(() => buildOpenApiDocument([both], info)).toThrow(/Shared differs/);
  });

  it("keeps ErrorBody as the spec writes it", () => {
    expect(ErrorBodySchema.parse({ statusCode: 400, error: "Bad Request", message: ["a"] })).toBeTruthy();
    expect(ErrorBodySchema.safeParse({ statusCode: 400, error: "Bad Request", message: "a" }).success).toBe(
      false,
    );
  });
});
