/** Prisma's codes for a database it cannot reach, that dropped the connection, or whose pool is exhausted. */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
/** What the driver adapter says when Prisma wraps a connection failure in another code (raw queries). */
const ADAPTER_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
  "DatabaseAccessDenied",
]);
/** Socket errors, and PostgreSQL's: shutting down, starting up, too many connections, connection failures. */
const DRIVER_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "57P01",
  "57P02",
  "57P03",
  "53300",
]);
/** The pg driver's own messages, which carry no code. */
const DRIVER_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i;

interface ErrorShape {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown[];
  meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } };
}

/**
 * Whether an error says that PostgreSQL is away (unreachable, restarting, the connection cut): the request
 * should be tried again later, which is a 503, not a bug.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 4) return false;
  const shape = error as ErrorShape;
  const code = typeof shape.code === "string" ? shape.code : undefined;
  if (code && (PRISMA_CODES.has(code) || DRIVER_CODES.has(code) || code.startsWith("08"))) return true;
  const adapterCause = shape.meta?.driverAdapterError?.cause;
  if (adapterCause && ADAPTER_KINDS.has(String(adapterCause.kind))) return true;
  const originalCode = adapterCause?.originalCode;
  if (typeof originalCode === "string" && (DRIVER_CODES.has(originalCode) || originalCode.startsWith("08")))
    return true;
  if (typeof shape.message === "string" && DRIVER_MESSAGES.test(shape.message)) return true;
  return [shape.cause, ...(shape.errors ?? [])].some((inner) => isDatabaseUnavailable(inner, depth + 1));
}
