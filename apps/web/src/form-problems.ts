import { ApiError } from "./api";
import { messageOf } from "./hooks";
import { fieldProblem, namedProblem } from "./human-messages";

/** A problem with one part of a form's value: zod's issue shape, and the API's `path: message` lines. */
export interface Problem {
  path: readonly PropertyKey[];
  message: string;
}

/** The shape of a zod schema's `safeParse`, which is all a form needs of the domain's schemas. */
interface Checks<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: Problem[] } };
}

/** Problems by field name; `form` holds those no field owns. */
export type FieldProblems = Record<string, string[]>;

/**
 * Checks a form's value with the schema the API validates it with: the same rules, before the request.
 * Answers the parsed value, or the problems by field.
 */
export function checkForm<T>(
  schema: Checks<T>,
  value: unknown,
  fieldOf: (path: readonly PropertyKey[]) => string = topField,
): { data: T } | { problems: FieldProblems } {
  const result = schema.safeParse(value);
  return result.success ? { data: result.data } : { problems: byField(result.error.issues, fieldOf) };
}

/**
 * The API's validation answer (400, each line `path: message`) by field; any other failure goes to `form`.
 */
export function problemsOfFailure(
  failure: unknown,
  fieldOf: (path: readonly PropertyKey[]) => string = topField,
): FieldProblems {
  if (!(failure instanceof ApiError) || failure.statusCode !== 400) return { form: [messageOf(failure)] };
  return byField(
    failure.messages.map((line) => {
      const separator = line.indexOf(": ");
      const path = separator > 0 ? line.slice(0, separator).split(".") : [];
      return separator > 0 && !path.some((part) => part.includes(" "))
        ? {
            path: path.map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
            message: line.slice(separator + 2),
          }
        : { path: [], message: line };
    }),
    fieldOf,
  );
}

function byField(problems: Problem[], fieldOf: (path: readonly PropertyKey[]) => string): FieldProblems {
  const grouped: FieldProblems = {};
  for (const problem of problems) {
    const field = problem.path.length > 0 ? fieldOf(problem.path) : "form";
    // A field's problem shows beside it; one no field owns names what it is about.
    const message =
      field === "form" ? namedProblem(problem.path, problem.message) : fieldProblem(problem.message);
    grouped[field] = [...(grouped[field] ?? []), message];
  }
  return grouped;
}

function topField(path: readonly PropertyKey[]): string {
  return String(path[0]);
}
