import {
  type BodyInputOf,
  backoffMs,
  ErrorBodySchema,
  type Operation,
  type ParamsOf,
  parseRetryAfterMs,
  type ResultOf,
  takesIdempotencyKey,
} from "@imagehub/domain";
import { ApiError, NetworkError, TimeoutError, UnexpectedResponseError } from "./errors.js";
import { sleep } from "./sleep.js";

export interface ClientOptions {
  /** Where the API is served (the live service or your own); default http://localhost:3000. */
  baseUrl?: string;
  /** Sent as the `api-key` header. */
  apiKey?: string;
  /** Time limit of each attempt, in ms; default 30,000. */
  timeoutMs?: number;
  /** Retries of idempotent calls after a 429, a 5xx or no answer; default 2. */
  retries?: number;
  /**
   * Calls that create or change something (create a generation, retry, delete, webhook changes) carry an
   * `Idempotency-Key`, one per call and the same on each of its retries, so that they are retried like the
   * others: the API answers a repeat with the first answer instead of running it again. Default true; set
   * false for a server that ignores the header, where such calls are then never repeated.
   */
  idempotencyKeys?: boolean;
  /** Another fetch (tests, proxies, edge runtimes); default the global one. */
  fetch?: typeof fetch;
}

/** What a call sends: the operation's path parameters, query and body, typed by the operation. */
export interface CallInput<O extends Operation = Operation> {
  params?: ParamsOf<O>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: BodyInputOf<O>;
}

export interface CallOptions {
  /** Cancels the call, retries included. */
  signal?: AbortSignal;
  /**
   * The call's `Idempotency-Key` (at most 255 characters), instead of a random one: the same key makes a
   * call made again later (after a restart, say) answer as the first did, within 24 hours.
   */
  idempotencyKey?: string;
}

const DEFAULT_BASE_URL = "http://localhost:3000";
/** Waits before retries: 0.5 s, 1 s, 2 s… with jitter, never more than this. */
const MAX_BACKOFF_MS = 8_000;
/** A Retry-After longer than this is not waited for: the error goes to the caller. */
const MAX_RETRY_AFTER_MS = 30_000;

/** One HTTP call per operation of `@imagehub/domain`: URL, headers, time limit, retries and errors. */
export class Transport {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: ClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 2;
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** Calls a JSON operation; answers its body, checked against the operation's schema. */
  async json<O extends Operation>(operation: O, input: CallInput<O> = {}, options: CallOptions = {}) {
    const response = await this.call(operation, input, options);
    const schema = operation.success.schema;
    if (!schema) return undefined as ResultOf<O>;
    const parsed = schema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) {
      throw new UnexpectedResponseError(
        `${operation.operationId}: the answer does not match the interface: ${parsed.error.issues
          .map((issue) => `${issue.path.join(".")}: ${issue.message}`)
          .join("; ")}`,
      );
    }
    return parsed.data as ResultOf<O>;
  }

  /** Calls an operation; answers the successful response (binary ones are read by the caller). */
  async call<O extends Operation>(
    operation: O,
    input: CallInput<O> = {},
    { signal, idempotencyKey }: CallOptions = {},
  ): Promise<Response> {
    const key = !takesIdempotencyKey(operation)
      ? undefined
      : (idempotencyKey ?? (this.options.idempotencyKeys === false ? undefined : crypto.randomUUID()));
    const isIdempotent = operation.method === "GET" || operation.idempotent === true;
    const retries = isIdempotent || key !== undefined ? this.retries : 0;
    for (let attempt = 0; ; attempt += 1) {
      const outcome = await this.attempt(operation, input, signal, key);
      const retryable = outcome instanceof Response ? isRetryable(outcome.status) : true;
      if (outcome instanceof Response && outcome.ok) return outcome;
      const wait = retryable && attempt < retries ? waitBefore(attempt, outcome) : undefined;
      if (wait === undefined) {
        if (outcome instanceof Response) throw await apiError(operation, outcome);
        throw outcome;
      }
      if (outcome instanceof Response) await outcome.body?.cancel();
      await sleep(wait, signal);
    }
  }

  /** One try: the response, or the NetworkError or TimeoutError that took its place. */
  private async attempt(
    operation: Operation,
    input: CallInput,
    signal: AbortSignal | undefined,
    idempotencyKey: string | undefined,
  ) {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    try {
      return await this.fetch(this.urlOf(operation, input), {
        method: operation.method,
        headers: {
          accept: "application/json, image/jpeg",
          ...(this.options.apiKey && { "api-key": this.options.apiKey }),
          ...(input.body !== undefined && { "content-type": "application/json" }),
          ...(idempotencyKey !== undefined && { "idempotency-key": idempotencyKey }),
        },
        ...(input.body !== undefined && { body: JSON.stringify(input.body) }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      // The caller's own cancellation is theirs to handle, as with fetch.
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        return new TimeoutError(`${operation.operationId}: no answer within ${this.timeoutMs} ms`);
      }
      // fetch reports the socket's error as its cause; trying several addresses, as an AggregateError.
      const cause = (
        error as Error & { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }
      ).cause;
      const code = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (error as Error).message;
      return new NetworkError(`${operation.operationId}: ${this.baseUrl} could not be reached (${code})`, {
        cause: error,
      });
    }
  }

  private urlOf(operation: Operation, { params, query = {} }: CallInput): string {
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = (params as Record<string, string> | undefined)?.[name];
      if (value === undefined) throw new TypeError(`${operation.operationId}: ${name} is required`);
      return encodeURIComponent(value);
    });
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) search.set(name, String(value));
    }
    const queryString = search.toString();
    return `${this.baseUrl}${path}${queryString ? `?${queryString}` : ""}`;
  }
}

function isRetryable(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Retry-After when the API sent one (and it is not too long), else exponential backoff with jitter. */
function waitBefore(attempt: number, outcome: Response | Error): number | undefined {
  const retryAfterMs =
    outcome instanceof Response
      ? parseRetryAfterMs(outcome.headers.get("retry-after") ?? undefined)
      : undefined;
  if (retryAfterMs !== undefined) return retryAfterMs <= MAX_RETRY_AFTER_MS ? retryAfterMs : undefined;
  return backoffMs(attempt + 1, 500, MAX_BACKOFF_MS);
}

async function apiError(operation: Operation, response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => "");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = ErrorBodySchema.safeParse(json);
  const body = parsed.success
    ? parsed.data
    : // Not the interface's error body (a proxy's page, say): the status stands in for it.
      {
        statusCode: response.status,
        error: response.statusText || "Error",
        message: [text.slice(0, 200) || "no body"],
      };
  return new ApiError(body, operation.operationId);
}
