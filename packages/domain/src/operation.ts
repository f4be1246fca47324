import type { z } from "zod";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

export interface OperationResponse {
  description: string;
  /** A JSON body; omitted for empty or binary bodies. */
  schema?: z.ZodType;
  /** For binary bodies, e.g. "image/jpeg". */
  contentType?: string;
}

/**
 * One route of the interface, described once: the API routes and validates with it, the OpenAPI document
 * is generated from it and the client calls through it.
 */
export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI style: `/v1/images/{format}/{imageId}.jpg`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /**
   * Repeating the call changes nothing more than making it once (GET routes are): clients may retry it
   * after a 429, a 5xx or a lost answer.
   */
  idempotent?: boolean;
  /** A POST that only reads (a search, a listing): a read-only API key may call it, as it may every GET. */
  changesNothing?: boolean;
  /**
   * /v1: "required": the api-key header must name a live key; "optional": used when present; "none": ignored.
   * /account (the web area, never an api-key): "session": a signed-in session cookie, and its CSRF token on
   * every state change; "admin": the same, of an admin account; "signed-out": no session, but state changes
   * must be JSON, which a cross-site form cannot send.
   */
  auth: "required" | "optional" | "none" | "session" | "admin" | "signed-out";
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The success response; its status is the key. */
  success: { status: number } & OperationResponse;
  /** Error statuses this route may answer besides 401 (auth), 400 (validation) and 500, with why. */
  errors?: Record<number, string>;
}

export function defineOperation<const O extends Operation>(operation: O): O {
  return operation;
}

/**
 * Calls that take an `Idempotency-Key` (Stripe's semantics): those of an api-key that repeating would
 * repeat the change (a create, a retry, a delete, a subscription, a test delivery), so that a client may
 * retry them too.
 */
export function takesIdempotencyKey(operation: Operation): boolean {
  const hasApiKey = operation.auth === "required" || operation.auth === "optional";
  return hasApiKey && operation.method !== "GET" && operation.idempotent !== true;
}

/** What a read-only API key may call: reading, never spending or changing. */
export function isReadOnly(operation: Operation): boolean {
  return operation.method === "GET" || operation.changesNothing === true;
}

/** The most characters an `Idempotency-Key` may have. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** What a client sends: defaults may be left out. */
export type BodyInputOf<O extends Operation> = O["body"] extends z.ZodType ? z.input<O["body"]> : never;
export type QueryInputOf<O extends Operation> = O["query"] extends z.ZodType ? z.input<O["query"]> : never;

export type BodyOf<O extends Operation> = O["body"] extends z.ZodType ? z.output<O["body"]> : never;
export type QueryOf<O extends Operation> = O["query"] extends z.ZodType ? z.output<O["query"]> : never;
export type ParamsOf<O extends Operation> = O["params"] extends z.ZodType ? z.output<O["params"]> : never;
export type ResultOf<O extends Operation> = O["success"]["schema"] extends z.ZodType
  ? z.output<O["success"]["schema"]>
  : undefined;
