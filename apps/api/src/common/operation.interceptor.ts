import { findUnstorableText, type Operation, UNSTORABLE_TEXT_MESSAGE } from "@imagehub/domain";
import {
  BadRequestException,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
} from "@nestjs/common";
import { Reflector } from "@nestjs/core";
import type { FastifyRequest } from "fastify";
import { map, type Observable } from "rxjs";
import type { z } from "zod";
import { OPERATION } from "./endpoint.decorator.js";

/**
 * Validates path parameters, query and body with the operation's schemas before the handler runs (the
 * handler receives the parsed values) and passes the result through the response schema, so that what
 * is answered is exactly what the OpenAPI document says.
 */
@Injectable()
export class OperationInterceptor implements NestInterceptor {
  /**
   * Answers a handler gave before (a reused search answer, say), as checked then: checking the same object
   * again on every request cost a fifth of a cached search's time. Cached answers are never mutated.
   */
  private readonly checked = new WeakMap<object, unknown>();

  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const operation = this.reflector.get<Operation | undefined>(OPERATION, context.getHandler());
    if (!operation) return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const problems: string[] = [];
    if (operation.params) request.params = parseInto(operation.params, request.params, problems, "path");
    if (operation.query) request.query = parseInto(operation.query, request.query, problems, "query");
    if (operation.body) request.body = parseInto(operation.body, request.body ?? {}, problems, "body");
    if (problems.length > 0) throw new BadRequestException(problems);
    const responseSchema = operation.success.schema;
    return responseSchema
      ? next.handle().pipe(map((result) => this.check(responseSchema, result)))
      : next.handle();
  }

  private check(schema: z.ZodType, result: unknown): unknown {
    if (typeof result !== "object" || result === null) return schema.parse(result);
    if (this.checked.has(result)) return this.checked.get(result);
    if (builtToSchema.has(result)) {
      checkedAnswers.add(result);
      return result;
    }
    const parsed = schema.parse(result);
    this.checked.set(result, parsed);
    if (typeof parsed === "object" && parsed !== null) checkedAnswers.add(parsed);
    return parsed;
  }
}

/**
 * Answers a service built field by field to the response schema's type, from values checked where they came in
 * (a search page: ids and flags, titles the catalogue stored, display links made from the configured base URL):
 * parsing them again cost about 3 % of an uncached search's CPU in the API.
 */
const builtToSchema = new WeakSet<object>();

/** Marks `answer` as built to its operation's response schema: it is sent without being parsed again. */
export function builtToResponseSchema<T extends object>(answer: T): T {
  builtToSchema.add(answer);
  return answer;
}

/** Answers as checked: nobody holds them but the interceptor, which never changes them. */
const checkedAnswers = new WeakSet<object>();
const serializedAnswers = new WeakMap<object, string>();

/**
 * The reply serializer: JSON, serialized once for a checked answer sent again (a reused search answer), since
 * serializing one cost a sixth of a cached search's time.
 */
export function serializeAnswer(payload: unknown): string {
  if (typeof payload !== "object" || payload === null || !checkedAnswers.has(payload)) {
    return JSON.stringify(payload);
  }
  let serialized = serializedAnswers.get(payload);
  if (serialized === undefined) {
    serialized = JSON.stringify(payload);
    serializedAnswers.set(payload, serialized);
  }
  return serialized;
}

/** A missing field reads "name: is required" rather than zod's "expected string, received undefined". */
const nameMissingFields: z.core.$ZodErrorMap = (issue) =>
  (issue.code === "invalid_type" || issue.code === "invalid_value") && issue.input === undefined
    ? "is required"
    : undefined;

/**
 * `part` names the request part when a problem is about it as a whole. Text PostgreSQL cannot store is
 * refused before the schema runs, wherever it is (a metaData key, a tag, a path parameter).
 */
function parseInto(schema: z.ZodType, value: unknown, problems: string[], part: string): unknown {
  const unstorable = findUnstorableText(value);
  if (unstorable) {
    problems.push(`${unstorable.length > 0 ? unstorable.join(".") : part}: ${UNSTORABLE_TEXT_MESSAGE}`);
    return value;
  }
  const result = schema.safeParse(value, { error: nameMissingFields });
  if (result.success) return result.data;
  problems.push(...result.error.issues.map((issue) => describeIssue(issue)));
  return value;
}

/** `limit: Too big: expected number to be <=100`: the field's path first, so the client knows what to fix. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    return `${path ? `${path}: ` : ""}unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`;
  }
  return path ? `${path}: ${issue.message}` : issue.message;
}
