import { z } from "zod";
import { ErrorBodySchema } from "./common.schema.js";
import { IDEMPOTENCY_KEY_MAX_LENGTH, type Operation, takesIdempotencyKey } from "./operation.js";

type JsonSchema = Record<string, unknown>;

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  serverUrl: string;
}

const STANDARD_ERRORS = {
  400: "Invalid request: the message names each offending field.",
  401: "Missing, unknown or revoked api-key.",
  500: "Unexpected error on the service side.",
} as const;

/**
 * Builds the OpenAPI 3.1 document from the operations and the zod schemas they reference. Named schemas
 * (those with a `meta({ id })`) become components; request bodies use their input form, responses their
 * output form.
 */
export function buildOpenApiDocument(operations: readonly Operation[], info: OpenApiInfo): JsonSchema {
  const components = new ComponentCollector();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const operation of operations) {
    paths[operation.path] ??= {};
    const pathItem = paths[operation.path] as Record<string, JsonSchema>;
    pathItem[operation.method.toLowerCase()] = describeOperation(operation, components);
  }
  return {
    openapi: "3.1.0",
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: info.serverUrl }],
    tags: [...new Set(operations.map((operation) => operation.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "api-key" } },
    },
  };
}

function describeOperation(operation: Operation, components: ComponentCollector): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  const { success } = operation;
  responses[String(success.status)] = {
    description: success.description,
    ...(success.schema && {
      content: { "application/json": { schema: components.ref(success.schema, "output") } },
    }),
    ...(success.contentType && {
      content: { [success.contentType]: { schema: { type: "string", contentEncoding: "binary" } } },
    }),
  };
  const errors: Record<number, string> = {};
  if (operation.body || operation.query || operation.params) errors[400] = STANDARD_ERRORS[400];
  if (operation.auth === "required") errors[401] = STANDARD_ERRORS[401];
  Object.assign(errors, operation.errors, { 500: STANDARD_ERRORS[500] });
  const errorBody = components.ref(ErrorBodySchema, "output");
  for (const [status, description] of Object.entries(errors)) {
    responses[status] = { description, content: { "application/json": { schema: errorBody } } };
  }
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.description && { description: operation.description }),
    tags: [operation.tag],
    security:
      operation.auth === "none"
        ? []
        : operation.auth === "optional"
          ? [{}, { apiKey: [] }]
          : [{ apiKey: [] }],
    parameters: [
      ...parametersOf(operation.params, "path"),
      ...parametersOf(operation.query, "query"),
      ...(takesIdempotencyKey(operation) ? [IDEMPOTENCY_KEY_PARAMETER] : []),
    ],
    ...(operation.body && {
      requestBody: {
        required: true,
        content: { "application/json": { schema: components.ref(operation.body, "input") } },
      },
    }),
    responses,
  };
}

const IDEMPOTENCY_KEY_PARAMETER: JsonSchema = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes a retry safe: the same key with the same request within 24 hours gets the first answer again " +
    "(with `Idempotent-Replayed: true`) without running anything twice; the same key with another " +
    "request, or while the first is still running, gets 409. Keys are the account's own.",
  schema: { type: "string", minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH },
};

function parametersOf(schema: z.ZodObject | undefined, location: "path" | "query"): JsonSchema[] {
  if (!schema) return [];
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return {
      name,
      in: location,
      required: location === "path" || (json.required ?? []).includes(name),
      ...(description !== undefined && { description }),
      schema: propertySchema,
    };
  });
}

/** Turns schemas into `$ref`s and gathers every named schema they reach under components. */
class ComponentCollector {
  readonly schemas: Record<string, JsonSchema> = {};

  ref(schema: z.ZodType, io: "input" | "output"): JsonSchema {
    // A schema with an id comes back as a $ref into $defs, beside every named schema it reaches.
    const {
      $defs = {},
      $schema: _dialect,
      ...root
    } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    for (const [id, definition] of Object.entries($defs)) this.add(id, rewriteRefs(definition));
    return rewriteRefs(root);
  }

  private add(id: string, definition: JsonSchema): void {
    const existing = this.schemas[id];
    if (existing && JSON.stringify(existing) !== JSON.stringify(definition)) {
      throw new Error(
        `Schema ${id} differs between its request and response forms; give each form its own id.`,
      );
    }
    this.schemas[id] = definition;
  }
}
function rewriteRefs(json: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
}
