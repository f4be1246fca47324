import type { z } from "zod";
import type { Operation } from "./operation.js";

/** Where the web area serves a /v1 operation: its own id and path, and its own name for a path id. */
interface SessionRoute {
  operationId: string;
  path: string;
  params?: z.ZodObject;
  /** Where the /v1 words speak of the API key. */
  description?: string;
}

/** A /v1 operation for the signed-in account of the web area: the same shapes, statuses and words. */
export function forTheSession<const O extends Operation, const Route extends SessionRoute>(
  operation: O,
  route: Route,
) {
  // What the spread makes: the route's fields in place of the operation's.
  type Session = Omit<O, keyof Route | "tag" | "auth"> & Route & { tag: "Account"; auth: "session" };
  return { ...operation, ...route, tag: "Account", auth: "session" } as Session;
}
