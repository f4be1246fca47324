import { z } from "zod";

export const ErrorBodySchema = z
  .object({
    statusCode: z.number().int().describe("The HTTP status code, repeated."),
    error: z.string().describe('The status name, e.g. "Bad Request".'),
    message: z.array(z.string()).describe("What went wrong; one line per problem, naming the field."),
  })
  .meta({ id: "ErrorBody", description: "The body of every error response." });
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

function paginationFields(number: () => z.ZodNumber | z.ZodCoercedNumber) {
  return {
    limit: number()
      .int()
      .min(1)
      .max(MAX_PAGE_SIZE)
      .default(DEFAULT_PAGE_SIZE)
      .describe(`Page size, 1 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when omitted.`),
    offset: number().int().min(0).default(0).describe("How many elements to skip; 0 when omitted."),
  };
}

/** limit/offset as JSON body fields: numbers, checked strictly. */
export const BodyPaginationSchema = z.object(paginationFields(() => z.number()));

/** limit/offset as query-string parameters, which arrive as text. */
export const QueryPaginationSchema = z.object(paginationFields(() => z.coerce.number()));
export type QueryPagination = z.infer<typeof QueryPaginationSchema>;

export const FilteredResultsSchema = z
  .number()
  .int()
  .min(0)
  .describe("How many elements match in all, across every page.");

export const DateTimeSchema = z.iso.datetime({ offset: true });

/** Dates PostgreSQL and every client can hold: years 1 to 9999 (PostgreSQL has no year 0). */
export const FilterDateTimeSchema = DateTimeSchema.refine(
  (text) => {
    const year = new Date(text).getUTCFullYear();
    return year >= 1 && year <= 9999;
  },
  { message: "must be between 0001-01-01 and 9999-12-31" },
);

/** A free key/value map supplied by the client and returned as given. */
export const MetaDataSchema = z.record(z.string().max(100), z.unknown());

export const METADATA_MAX_DEPTH = 16;
export const METADATA_MAX_BYTES = 16_384;

/**
 * metaData as a request may give it: at most 16 levels deep and 16 KB as JSON, since it rides on every
 * list page and webhook event (and a deeper one would overflow the stack of JSON.stringify).
 */
export const MetaDataInputSchema = MetaDataSchema.superRefine((metaData, ctx) => {
  if (nestingDepth(metaData, METADATA_MAX_DEPTH + 1) > METADATA_MAX_DEPTH) {
    ctx.addIssue({
      code: "custom",
      message: `must not be nested more than ${METADATA_MAX_DEPTH} levels deep`,
    });
    return;
  }
  if (new TextEncoder().encode(JSON.stringify(metaData)).length > METADATA_MAX_BYTES) {
    ctx.addIssue({ code: "custom", message: `must be at most ${METADATA_MAX_BYTES} bytes as JSON` });
  }
}).describe(
  `A free key/value map, at most ${METADATA_MAX_DEPTH} levels deep and ${METADATA_MAX_BYTES} bytes as JSON.`,
);

/** Levels of objects and arrays in `value`, counted no further than `limit`, so any depth is safe. */
function nestingDepth(value: unknown, limit: number): number {
  if (typeof value !== "object" || value === null) return 0;
  if (limit <= 1) return 1;
  let deepest = 0;
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, nestingDepth(child, limit - 1));
    if (deepest >= limit - 1) break;
  }
  return 1 + deepest;
}

export const UNSTORABLE_TEXT_MESSAGE = "must not contain NUL characters or unpaired surrogates";

/** Halves of UTF-16 surrogate pairs without their other half: not text, and PostgreSQL refuses them. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function isUnstorable(text: string): boolean {
  return text.includes("\0") || UNPAIRED_SURROGATE.test(text);
}

interface Visit {
  value: unknown;
  key: string | number | undefined;
  parent: Visit | undefined;
}

/**
 * The path of the first string (value or key) in `value` that PostgreSQL cannot store: one with NUL or an
 * unpaired surrogate. Walks without recursion and builds the path only when it finds one, so a request
 * nested thousands deep costs what its size costs.
 */
export function findUnstorableText(value: unknown): (string | number)[] | undefined {
  const pending: Visit[] = [{ value, key: undefined, parent: undefined }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    if (typeof visit.value === "string") {
      if (isUnstorable(visit.value)) return pathOf(visit);
      continue;
    }
    if (typeof visit.value !== "object" || visit.value === null) continue;
    const isArray = Array.isArray(visit.value);
    for (const [key, child] of Object.entries(visit.value)) {
      const next = { value: child, key: isArray ? Number(key) : key, parent: visit };
      if (isUnstorable(key)) return pathOf(next);
      pending.push(next);
    }
  }
  return undefined;
}

function pathOf(visit: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let step: Visit | undefined = visit; step?.key !== undefined; step = step.parent)
    path.unshift(step.key);
  return path;
}

export const HealthSchema = z
  .object({
    status: z.enum(["ok", "unavailable"]),
    checks: z.object({
      database: z.enum(["ok", "down"]),
      redis: z.enum(["ok", "down"]),
    }),
  })
  .meta({ id: "Health" });
export type Health = z.infer<typeof HealthSchema>;

export const LivenessSchema = z.object({ status: z.literal("ok") }).meta({ id: "Liveness" });
export type Liveness = z.infer<typeof LivenessSchema>;
