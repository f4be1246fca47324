import { formatDate } from "./format";

/**
 * The API's refusals and the schemas' problems in plain words. zod's own wording ("Too small: expected
 * string to have >=1 characters") is written for programmers; each of its shapes becomes what a reader
 * should do, and timestamps become the reader's local time.
 */

/** What zod's default message says of a value, as the end of a sentence ("is required"). */
function predicateOf(message: string): string | undefined {
  const size = /^Too (small|big): expected (\w+) to (?:have|be) ([<>]=?)(\d+(?:\.\d+)?)\s*(\w*)/.exec(
    message,
  );
  if (size) {
    const [, , origin, relation, amount, unit] = size;
    const isMinimum = relation?.startsWith(">");
    const isInclusive = relation?.endsWith("=");
    if (origin === "string" && isMinimum && amount === "1" && isInclusive) return "is required";
    const bound = isMinimum
      ? isInclusive
        ? "at least"
        : "more than"
      : isInclusive
        ? "at most"
        : "less than";
    if (origin === "string") return `must be ${bound} ${amount} characters long`;
    if (origin === "array" || origin === "set") return `must have ${bound} ${amount} ${unit || "items"}`;
    return `must be ${bound} ${amount}`;
  }
  const type = /^Invalid input: expected (\w+), received (\w+)/.exec(message);
  if (type) return type[2] === "undefined" ? "is required" : `must be a ${type[1]}`;
  const option = /^Invalid option: expected one of (.+)$/.exec(message);
  if (option) return `must be one of ${option[1]?.replaceAll('"', "").split("|").join(", ")}`;
  const format = /^Invalid (email address|URL|UUID|ISO datetime|date)/i.exec(message);
  if (format) return `is not a valid ${format[1]?.replace("ISO datetime", "date and time")}`;
  if (/^Unrecognized keys?:/.test(message)) return `has something this form does not take (${message})`;
  // The domain's own messages already read as the end of a sentence.
  if (/^(must|is|are|should|cannot) /.test(message)) return message;
  return undefined;
}

/** "filterFree" or "params.2.value" as a reader would name it: "Filter free", "Value". */
function labelOf(path: readonly PropertyKey[]): string {
  const last = [...path].reverse().find((part) => typeof part === "string") ?? "This";
  const words = String(last)
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function sentence(text: string): string {
  const trimmed = text.trim();
  const capitalised = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

/** Timestamps (ISO 8601, UTC) in the reader's own time zone and words. */
export function withLocalDates(text: string): string {
  return text.replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z\b/g, (iso) => formatDate(iso));
}

/** A problem shown beside its own field: "This field is required." */
export function fieldProblem(message: string): string {
  const predicate = predicateOf(message);
  return predicate ? sentence(`This field ${predicate}`) : sentence(withLocalDates(message));
}

/** A problem of a named part of a request: "Name is required." */
export function namedProblem(path: readonly PropertyKey[], message: string): string {
  const predicate = predicateOf(message);
  return predicate ? sentence(`${labelOf(path)} ${predicate}`) : sentence(withLocalDates(message));
}

/** One line of an API error's `message`: a "path: problem" line is named, any other kept as said. */
export function humanLine(line: string): string {
  const separator = line.indexOf(": ");
  const path = separator > 0 ? line.slice(0, separator).split(".") : [];
  const isPath = path.length > 0 && !path.some((part) => part.includes(" "));
  return isPath ? namedProblem(path, line.slice(separator + 2)) : withLocalDates(line);
}
