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

export const FilteredResultsSchema = z
  .number()
  .int()
  .min(0)
  .describe("How many elements match in all, across every page.");

export const DateTimeSchema = z.iso.datetime({ offset: true });

/** A free key/value map supplied by the client and returned as given. */
export const MetaDataSchema = z.record(z.string().max(100), z.unknown());

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
