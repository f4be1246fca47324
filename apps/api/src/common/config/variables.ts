import { z } from "zod";

/** "true", "false", "1" or "0". */
export const booleanFlag = z
  .enum(["true", "false", "1", "0"])
  .transform((value) => value === "true" || value === "1");

/**
 * Variables that more than one section reads, each declared once. Without DATABASE_URL the process is
 * embedded: a PGlite database in DATA_DIR.
 */
export const SHARED_VARIABLES = {
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_BASE_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  DATABASE_URL: z.url().optional(),
  API_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
};

/** A setting that breaks a rule no single variable's schema can check, reported like a variable's own. */
export class VariableProblem extends Error {
  constructor(
    /** The variable to name; undefined when the problem is between variables and its message names them. */
    readonly variable: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One area's section of the configuration: the variables it reads, and how they map to its settings. A
 * VariableProblem the mapping throws is reported as a problem of the variable it names.
 */
export function section<Shape extends z.ZodRawShape, Settings>(
  variables: Shape,
  map: (values: z.output<z.ZodObject<Shape>>) => Settings,
) {
  return z.object(variables).transform((values, context) => {
    try {
      return map(values);
    } catch (error) {
      if (!(error instanceof VariableProblem)) throw error;
      context.issues.push({
        code: "custom",
        message: error.message,
        input: values,
        path: error.variable === undefined ? [] : [error.variable],
      });
      return z.NEVER;
    }
  });
}

/** The address clients reach the API at: PUBLIC_BASE_URL, else this host's port. */
export function publicBaseUrlOf(values: { PORT: number; PUBLIC_BASE_URL?: string | undefined }): string {
  return withoutTrailingSlash(values.PUBLIC_BASE_URL ?? `http://localhost:${values.PORT}`);
}

export function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, "");
}
